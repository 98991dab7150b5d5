import { z, EpochMs } from '../zod.js';
import { ruleLogicIssues } from '../rule-logic.js';
import { Origin, ProjectName, ScopeQuery, WindowQuery } from './common.js';

/** Names users choose: rule ids, tags, labels, attribute names. */
const Name = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .regex(/^[^\u0000-\u001f]+$/, 'must not contain control characters');
export const RuleId = Name(128).openapi({
  description: 'Identifier of the rule, chosen by the user',
  example: 'engaged-visitor',
});

/** Refines a JSONLogic field: unknown operators, malformed, over-deep or oversized logic. */
const logicField = (description: string) =>
  z
    .unknown()
    .superRefine((logic, ctx) => {
      if (logic === undefined)
        return void ctx.addIssue({ code: 'custom', message: 'Field required', params: { type: 'missing' } });
      for (const i of ruleLogicIssues(logic))
        ctx.addIssue({ code: 'custom', message: i.msg, path: i.path, params: { type: i.type } });
    })
    .openapi({ description });

/**
 * A rule's definition: the fields of POST /v1/rules, and of each entry of a YAML rules
 * document (where origin and project may be left out).
 */
const RuleFields = {
  rule_id: RuleId,
  kind: z.enum(['classification', 'attribute']).default('classification'),
  logic: logicField('JSONLogic; a classification rule sees the session summary, an attribute rule the enriched event'),
  tags: z.array(Name(200)).max(32).default([]),
  label: Name(200).nullable().optional(),
  attribute: Name(128).nullable().optional().openapi({ description: 'Attribute rules: the attribute to set' }),
  value: z
    .unknown()
    .optional()
    .openapi({ description: 'Attribute rules: JSONLogic for the value, evaluated on the event' }),
  description: z.string().max(2000).nullable().optional(),
  enabled: z.boolean().default(true),
};

function checkKind(r: { kind: string; attribute?: string | null | undefined; value?: unknown }, ctx: z.RefinementCtx) {
  if (r.kind === 'attribute') {
    if (!r.attribute)
      ctx.addIssue({
        code: 'custom',
        message: 'Field required for attribute rules',
        path: ['attribute'],
        params: { type: 'missing' },
      });
    if (r.value === undefined)
      ctx.addIssue({
        code: 'custom',
        message: 'Field required for attribute rules',
        path: ['value'],
        params: { type: 'missing' },
      });
    else
      for (const i of ruleLogicIssues(r.value))
        ctx.addIssue({ code: 'custom', message: i.msg, path: ['value', ...i.path], params: { type: i.type } });
  } else if (r.attribute != null || r.value !== undefined) {
    ctx.addIssue({
      code: 'custom',
      message: 'attribute and value belong to attribute rules',
      path: [r.attribute != null ? 'attribute' : 'value'],
      params: { type: 'value_error' },
    });
  }
}

export const RuleDefinition = z.object(RuleFields).strict().superRefine(checkKind);
export type RuleDefinitionInput = z.infer<typeof RuleDefinition>;

export const CreateRuleRequest = z
  .object({ origin: Origin, project: ProjectName, ...RuleFields })
  .strict()
  .superRefine(checkKind)
  .openapi('CreateRuleRequest');

export const RulePath = z.object({ rule_id: RuleId });

export const RuleSchema = z
  .object({
    rule_id: z.string(),
    origin: z.string(),
    project: z.string(),
    version: z.number().int(),
    kind: z.enum(['classification', 'attribute']),
    logic: z.unknown(),
    tags: z.array(z.string()),
    label: z.string().nullable(),
    attribute: z.string().nullable(),
    value: z.unknown(),
    description: z.string().nullable(),
    enabled: z.boolean(),
    created_at: EpochMs,
    updated_at: EpochMs,
  })
  .openapi('Rule');
export const RuleList = z.object({ rules: z.array(RuleSchema) }).openapi('RuleList');
export const RuleVersions = z.object({ rule_id: z.string(), versions: z.array(RuleSchema) }).openapi('RuleVersions');

/** Limits of POST /v1/rules/test. */
export const RULE_TEST_LIMITS = { sessions: 1000, yamlBytes: 256 * 1024 } as const;

export const RuleTestRequest = z
  .object({
    sessions: z
      .array(z.record(z.string(), z.unknown()))
      .max(RULE_TEST_LIMITS.sessions)
      .openapi({ description: 'Session objects, shaped like GET /v1/sessions/{id}' }),
    rules: z
      .string()
      .max(RULE_TEST_LIMITS.yamlBytes)
      .openapi({ description: 'YAML: a list of rule definitions, or a mapping with a `rules:` list' }),
  })
  .openapi('RuleTestRequest');

export const RuleTestResult = z
  .object({
    results: z.array(
      z.object({
        session_id: z.string().nullable(),
        matched: z.array(z.string()),
        labels: z.array(z.string()),
        tags: z.array(z.string()),
        attributes: z.record(z.string(), z.unknown()),
      }),
    ),
  })
  .openapi('RuleTestResult');

export const AddTagRequest = z
  .object({ origin: Origin, project: ProjectName, tag: Name(200) })
  .openapi('AddTagRequest');
export const TagChange = z.object({ session_id: z.string(), tag: z.string(), tagged_at: EpochMs }).openapi('TagChange');

// Triggers (spec: Triggers). Field lists are DESIGN.md's choices; the spec names only the schemas.
export const RequestBase = ScopeQuery.extend(WindowQuery.shape).openapi('RequestBase');
export const ClassificationRequest = RequestBase.extend({
  session_ids: z.array(z.string().min(1).max(256)).min(1).max(1000),
}).openapi('ClassificationRequest');
export const BackfillRequest = RequestBase.openapi('BackfillRequest');
export const NotificationRequest = RequestBase.extend({
  kind: z.enum(['digest', 'alert']).default('digest'),
  channels: z
    .array(z.string().min(1).max(128))
    .max(20)
    .optional()
    .openapi({ description: "Channel ids; all of the account's channels when left out" }),
}).openapi('NotificationRequest');
export const TransitionsRequest = RequestBase.openapi('TransitionsRequest');

export const JobQueued = z.object({ job_id: z.string(), status: z.literal('queued') }).openapi('JobQueued');
export const JobPath = z.object({ job_id: z.string().min(1).max(64) });
export const JobSchema = z
  .object({
    job_id: z.string(),
    kind: z.enum([
      'aggregation',
      'notification',
      'transitions',
      'classification',
      'backfill',
      'export',
      'project_deletion',
      'account_deletion',
      'erasure',
    ]),
    status: z.enum(['queued', 'running', 'succeeded', 'failed']),
    origin: z.string(),
    project: z.string(),
    request: z.record(z.string(), z.unknown()),
    created_at: EpochMs,
    started_at: EpochMs.nullable(),
    finished_at: EpochMs.nullable(),
    progress: z.object({ done: z.number().int(), total: z.number().int().nullable() }).nullable(),
    result: z.unknown(),
    error: z.string().nullable(),
    attempts: z.number().int(),
  })
  .openapi('Job');
