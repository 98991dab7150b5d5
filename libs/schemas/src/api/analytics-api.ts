// Funnels and retention (issue 18; docs/analytics.md).
import { z, EpochMs } from '../zod.js';
import { ruleLogicIssues } from '../rule-logic.js';
import { Origin, ProjectName, ScopeQuery, WindowQuery, limitParam } from './common.js';

export const FUNNEL_LIMITS = {
  minSteps: 2,
  maxSteps: 10,
  whereFields: 20,
  /** A conversion window from one second to 90 days. */
  minConversionMs: 1000,
  maxConversionMs: 90 * 86_400_000,
  /** Synchronous answers scan at most this span. */
  maxWindowMs: 92 * 86_400_000,
  defaultWindowMs: 7 * 86_400_000,
  /** Breakdown groups answered at most, most entered first. */
  maxGroups: 25,
} as const;

export const FUNNEL_BREAKDOWNS = ['browser', 'country', 'utm_source', 'entry_page'] as const;
export type FunnelBreakdown = (typeof FUNNEL_BREAKDOWNS)[number];

const PayloadValue = z.union([z.string().max(1000), z.number(), z.boolean(), z.null()]);

const StepLogic = z
  .unknown()
  .superRefine((logic, ctx) => {
    for (const i of ruleLogicIssues(logic))
      ctx.addIssue({ code: 'custom', message: i.msg, path: i.path, params: { type: i.type } });
  })
  .openapi({
    description:
      'JSONLogic over one enriched event (what an attribute rule sees: action, payload.<field>, path, url, query.<name>, browser.name, geo.country, utm.source, …)',
  });

export const FunnelStepSchema = z
  .object({
    name: z.string().min(1).max(200).optional().openapi({ description: 'Label; default: the action, or "Step n"' }),
    action: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .openapi({ description: 'An action name: the step is an event with this action' }),
    where: z
      .record(z.string().min(1).max(200), PayloadValue)
      .optional()
      .openapi({ description: 'With action: payload fields (dot paths) that must equal these values, type included' }),
    logic: StepLogic.optional(),
  })
  .strict()
  .superRefine((s, ctx) => {
    if ((s.action === undefined) === (s.logic === undefined)) {
      ctx.addIssue({
        code: 'custom',
        message: 'A step is either an action (with optional where) or a JSONLogic condition (logic)',
        path: [],
        params: { type: 'value_error' },
      });
    }
    if (s.where !== undefined && s.action === undefined)
      ctx.addIssue({
        code: 'custom',
        message: 'where belongs to action steps',
        path: ['where'],
        params: { type: 'value_error' },
      });
    if (s.where && Object.keys(s.where).length > FUNNEL_LIMITS.whereFields)
      ctx.addIssue({
        code: 'custom',
        message: `At most ${FUNNEL_LIMITS.whereFields} payload conditions`,
        path: ['where'],
        params: { type: 'value_error' },
      });
  })
  .openapi('FunnelStep');
export type FunnelStepInput = z.infer<typeof FunnelStepSchema>;

/** How a funnel is counted, shared by a query and a saved funnel. */
const FunnelOptions = {
  steps: z.array(FunnelStepSchema).min(FUNNEL_LIMITS.minSteps).max(FUNNEL_LIMITS.maxSteps),
  unit: z
    .enum(['session', 'visitor'])
    .default('session')
    .openapi({ description: 'Count sessions, or visitors (an IP and user agent pair, as the overview counts them)' }),
  order: z.enum(['strict', 'any']).default('strict').openapi({
    description:
      'strict: each step after the one before (other events may come between); any: all of steps 1..n in any order',
  }),
  conversion_window_ms: z
    .number()
    .int()
    .min(FUNNEL_LIMITS.minConversionMs)
    .max(FUNNEL_LIMITS.maxConversionMs)
    .default(86_400_000)
    .openapi({ description: 'The last step counted at most this long after the first' }),
  breakdown: z
    .enum(FUNNEL_BREAKDOWNS)
    .optional()
    .openapi({ description: "Also answer per value of this property of the unit's first event in the window" }),
};

function checkWindow(
  w: { window_start?: number | undefined; window_end?: number | undefined },
  ctx: z.RefinementCtx,
): void {
  if (w.window_start !== undefined && w.window_end !== undefined) {
    if (w.window_end <= w.window_start)
      ctx.addIssue({
        code: 'custom',
        message: 'window_end must be after window_start',
        path: ['window_end'],
        params: { type: 'value_error' },
      });
    else if (w.window_end - w.window_start > FUNNEL_LIMITS.maxWindowMs)
      ctx.addIssue({
        code: 'custom',
        message: `The window spans at most ${FUNNEL_LIMITS.maxWindowMs / 86_400_000} days`,
        path: ['window_end'],
        params: { type: 'value_error' },
      });
  }
}

export const FunnelQueryRequest = z
  .object({
    origin: Origin,
    project: ProjectName,
    ...WindowQuery.shape,
    window_start: EpochMs.optional(),
    window_end: EpochMs.optional(),
    ...FunnelOptions,
  })
  .strict()
  .superRefine(checkWindow)
  .openapi('FunnelQueryRequest');
export type FunnelQueryInput = z.infer<typeof FunnelQueryRequest>;

const Ratio = z.number().min(0).nullable();
export const FunnelStepResultSchema = z
  .object({
    name: z.string(),
    entered: z.number().int().openapi({ description: 'Units that reached this step (in funnel order)' }),
    converted: z
      .number()
      .int()
      .nullable()
      .openapi({ description: 'Of those, units that went on to the next step; null for the last' }),
    conversion_from_previous: Ratio,
    conversion_from_first: Ratio,
    median_ms_to_next: z.number().int().nullable().openapi({
      description:
        'Median time from first reaching this step to first reaching the next; null for the last step or when nobody went on',
    }),
  })
  .openapi('FunnelStepResult');

export const FunnelResultSchema = z
  .object({
    origin: z.string(),
    project: z.string(),
    window_start: EpochMs,
    window_end: EpochMs,
    unit: z.enum(['session', 'visitor']),
    order: z.enum(['strict', 'any']),
    conversion_window_ms: z.number().int(),
    evaluated_in: z.enum(['sql', 'typescript']).openapi({
      description:
        "sql when every step compiled to SQL; typescript when a step's JSONLogic had to be evaluated by json-logic-js",
    }),
    step_evaluation: z.array(z.enum(['sql', 'typescript'])),
    steps: z.array(FunnelStepResultSchema),
    breakdown: z
      .object({
        property: z.enum(FUNNEL_BREAKDOWNS),
        groups: z.array(z.object({ value: z.string().nullable(), steps: z.array(FunnelStepResultSchema) })),
      })
      .nullable(),
  })
  .openapi('FunnelResult');

// Saved funnels: records of kind `funnel`.
export const CreateFunnelRequest = z
  .object({ origin: Origin, project: ProjectName, name: z.string().min(1).max(200), ...FunnelOptions })
  .strict()
  .openapi('CreateFunnelRequest');
export const FunnelPath = z.object({ funnel_id: z.string().min(1).max(64) });
export const SavedFunnelSchema = z
  .object({
    funnel_id: z.string(),
    origin: z.string(),
    project: z.string(),
    name: z.string(),
    steps: z.array(FunnelStepSchema),
    unit: z.enum(['session', 'visitor']),
    order: z.enum(['strict', 'any']),
    conversion_window_ms: z.number().int(),
    breakdown: z.enum(FUNNEL_BREAKDOWNS).nullable(),
    created_at: EpochMs,
  })
  .openapi('SavedFunnel');
export const SavedFunnelList = z.object({ funnels: z.array(SavedFunnelSchema) }).openapi('SavedFunnelList');
export const FunnelListQuery = ScopeQuery.extend({ limit: limitParam(100, 1000) });
export const SavedFunnelQuery = ScopeQuery.extend(WindowQuery.shape).superRefine(checkWindow);

export interface SavedFunnelData {
  funnel_id: string;
  name: string;
  steps: FunnelStepInput[];
  unit: 'session' | 'visitor';
  order: 'strict' | 'any';
  conversion_window_ms: number;
  breakdown: FunnelBreakdown | null;
  created_at: number;
}

// Retention.
export const RETENTION_LIMITS = { maxDays: 92, maxWeeks: 53, defaultDays: 30, defaultWeeks: 12 } as const;

export const RetentionQuery = ScopeQuery.extend(WindowQuery.shape)
  .extend({
    period: z
      .enum(['day', 'week'])
      .default('day')
      .openapi({ description: 'Cohorts by UTC day, or by ISO week (from Monday 00:00 UTC)' }),
    action: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .openapi({ description: 'A visitor returns with an event of this action; any event when left out' }),
  })
  .superRefine((q, ctx) => {
    if (q.window_start !== undefined && q.window_end !== undefined && q.window_end <= q.window_start) {
      ctx.addIssue({
        code: 'custom',
        message: 'window_end must be after window_start',
        path: ['window_end'],
        params: { type: 'value_error' },
      });
    }
  });

export const RetentionResultSchema = z
  .object({
    origin: z.string(),
    project: z.string(),
    period: z.enum(['day', 'week']),
    period_ms: z.number().int(),
    window_start: EpochMs.openapi({
      description: "The first cohort's start (window_start rounded down to its period)",
    }),
    window_end: EpochMs,
    action: z.string().nullable(),
    cohorts: z.array(
      z.object({
        start: EpochMs,
        size: z.number().int().openapi({ description: 'Visitors first seen in this period' }),
        returning: z.array(z.number().int()).openapi({
          description: 'Index k: visitors of the cohort active in the k-th period after it (index 0: the size)',
        }),
        shares: z.array(z.number()).openapi({ description: 'returning divided by size' }),
      }),
    ),
  })
  .openapi('RetentionResult');
