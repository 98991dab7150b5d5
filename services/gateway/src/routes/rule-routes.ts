import { errors } from '@spoor/http';
import type { Kv } from '@spoor/kv';
import { testRulesOffThread } from '@spoor/rules';
import { RuleVersionConflict, saveRuleVersion, type RuleContent } from '@spoor/rule-service';
import {
  CreateRuleRequest,
  RuleList,
  RulePath,
  RuleSchema,
  RuleTestRequest,
  RuleTestResult,
  RuleVersions,
  ScopeQuery,
  roleAtLeast,
  z,
  type ProjectRecord,
  type RuleRecord,
} from '@spoor/schemas';
import type { Store } from '@spoor/store';
import type { Principal } from '../auth-guard.js';
import { defineOperation, type RouteContext } from '../operation-route.js';
import { changedFields, type AuditRecorder } from '../audit/audit-trail.js';
import { ruleTestAnswer } from '../rule-test-answer.js';
import { requireRawFieldsReadable, scopedProject } from '../project-scope.js';

function publicRule(r: RuleRecord, p: ProjectRecord) {
  const { project_id: _p, updated_by: _by, ...rest } = r;
  return { ...rest, origin: p.origin, project: p.project };
}

/** DELETE names only the rule (spec); origin and project narrow it when the id is in several projects. */
const OptionalScope = z.object({
  origin: ScopeQuery.shape.origin.optional(),
  project: ScopeQuery.shape.project.optional(),
});

/** What the audit trail compares between two versions of a rule. */
const RULE_FIELDS = [
  'version',
  'kind',
  'enabled',
  'label',
  'description',
  'tags',
  'attribute',
  'logic',
  'value',
] as const;

function auditRule(audit: AuditRecorder, project: ProjectRecord, before: RuleRecord | null, after: RuleRecord): void {
  audit.record(project, {
    action: before === null ? 'rule.created' : after.enabled || !before.enabled ? 'rule.updated' : 'rule.disabled',
    target: { kind: 'rule', id: after.rule_id, name: after.label },
    changes: changedFields(before, after, RULE_FIELDS),
  });
}

export function ruleRoutes(ctx: RouteContext, store: Store, kv: Kv, clock: () => number): void {
  /** The next version (libs/rules saveRuleVersion); saves that kept colliding answer 409. */
  async function saveVersion(
    project: ProjectRecord,
    principal: Principal,
    next: (prev: RuleRecord | null) => RuleContent,
    ruleId: string,
  ) {
    try {
      return await saveRuleVersion(
        { rules: store.rules, kv, clock },
        project.project_id,
        ruleId,
        principal.account_id,
        next,
      );
    } catch (err) {
      if (err instanceof RuleVersionConflict) throw errors.conflict('The rule was changed concurrently; try again');
      throw err;
    }
  }

  defineOperation(
    ctx,
    {
      method: 'get',
      path: '/v1/rules',
      summary: 'Every rule of the project, enabled or not',
      tag: 'rules',
      auth: true,
      role: 'viewer',
      query: ScopeQuery,
      response: RuleList,
      failures: ['not_found'],
    },
    async ({ query, principal }) => {
      const project = await scopedProject(store, principal, query.origin, query.project);
      return { rules: (await store.rules.list(project.project_id)).map((r) => publicRule(r, project)) };
    },
  );

  defineOperation(
    ctx,
    {
      method: 'get',
      path: '/v1/rules/{rule_id}',
      summary: 'The rule with its JSONLogic (latest version)',
      tag: 'rules',
      auth: true,
      role: 'viewer',
      query: ScopeQuery,
      params: RulePath,
      response: RuleSchema,
      failures: ['not_found'],
    },
    async ({ query, params, principal }) => {
      const project = await scopedProject(store, principal, query.origin, query.project);
      const rule = await store.rules.get(project.project_id, params.rule_id);
      if (!rule) throw errors.notFound('Rule not found');
      return publicRule(rule, project);
    },
  );

  defineOperation(
    ctx,
    {
      method: 'get',
      path: '/v1/rules/{rule_id}/versions',
      summary: 'Every saved version of the rule, oldest first',
      tag: 'rules',
      auth: true,
      role: 'viewer',
      query: ScopeQuery,
      params: RulePath,
      response: RuleVersions,
      failures: ['not_found'],
    },
    async ({ query, params, principal }) => {
      const project = await scopedProject(store, principal, query.origin, query.project);
      const versions = await store.rules.versions(project.project_id, params.rule_id);
      if (versions.length === 0) throw errors.notFound('Rule not found');
      return { rule_id: params.rule_id, versions: versions.map((r) => publicRule(r, project)) };
    },
  );

  defineOperation(
    ctx,
    {
      method: 'post',
      path: '/v1/rules',
      summary: 'Creates a rule, or saves the next version of an existing rule_id',
      tag: 'rules',
      auth: true,
      role: 'editor',
      body: CreateRuleRequest,
      response: RuleSchema,
      failures: ['not_found', 'conflict', 'raw_fields_unverified'],
      audit: ['rule.created', 'rule.updated', 'rule.disabled'],
    },
    async ({ body, principal, audit }) => {
      const project = await scopedProject(store, principal, body.origin, body.project);
      // An attribute rule sees one stored event; a classification rule sees the summary, which
      // an unverified project's owner reads anyway (issue 42, the DNS gate through logic).
      if (body.kind === 'attribute' && body.enabled !== false)
        requireRawFieldsReadable(project, `The attribute rule ${body.rule_id}`, body.logic, body.value);
      const before = await store.rules.get(project.project_id, body.rule_id);
      const rule = await saveVersion(
        project,
        principal,
        () => ({
          rule_id: body.rule_id,
          kind: body.kind,
          logic: body.logic,
          tags: [...new Set(body.tags)],
          label: body.label ?? null,
          attribute: body.attribute ?? null,
          value: body.value ?? null,
          description: body.description ?? null,
          enabled: body.enabled,
        }),
        body.rule_id,
      );
      // The version saved just before this one, if another save slipped in between the read and this save.
      const previous =
        before && before.version === rule.version - 1
          ? before
          : rule.version > 1
            ? ((await store.rules.versions(project.project_id, body.rule_id)).find(
                (r) => r.version === rule.version - 1,
              ) ?? null)
            : null;
      auditRule(audit, project, previous, rule);
      return publicRule(rule, project);
    },
  );

  defineOperation(
    ctx,
    {
      method: 'delete',
      path: '/v1/rules/{rule_id}',
      summary: 'Disables the rule; it stays readable with enabled: false',
      tag: 'rules',
      auth: true,
      role: 'editor',
      query: OptionalScope,
      params: RulePath,
      response: RuleSchema,
      failures: ['not_found', 'conflict'],
      audit: ['rule.disabled'],
    },
    async ({ query, params, principal, audit }) => {
      let project: ProjectRecord;
      if (query.origin !== undefined || query.project !== undefined) {
        if (query.origin === undefined || query.project === undefined) {
          const missing = query.origin === undefined ? 'origin' : 'project';
          throw errors.validation([
            { loc: ['query', missing], msg: 'Field required when the other scope parameter is given', type: 'missing' },
          ]);
        }
        project = await scopedProject(store, principal, query.origin, query.project);
      } else {
        const holders: ProjectRecord[] = [];
        // The projects the caller may edit rules of (issue 45).
        for (const m of await store.members.ofAccount(principal.account_id)) {
          const p = roleAtLeast(m.role, 'editor') ? await store.projects.get(m.project_id) : null;
          if (p && (await store.rules.get(p.project_id, params.rule_id))) holders.push(p);
        }
        if (holders.length === 0) throw errors.notFound('Rule not found');
        if (holders.length > 1)
          throw errors.conflict('Several of your projects have a rule with this id; give origin and project');
        project = holders[0]!;
      }
      const current = await store.rules.get(project.project_id, params.rule_id);
      if (!current) throw errors.notFound('Rule not found');
      if (!current.enabled) return publicRule(current, project);
      const rule = await saveVersion(
        project,
        principal,
        (prev) => ({ ...(prev ?? current), enabled: false }),
        params.rule_id,
      );
      auditRule(audit, project, { ...rule, version: rule.version - 1, enabled: true }, rule);
      return publicRule(rule, project);
    },
  );

  defineOperation(
    ctx,
    {
      method: 'post',
      path: '/v1/rules/test',
      summary: 'Evaluates YAML rules against the given sessions; writes nothing',
      tag: 'rules',
      auth: true,
      role: 'account',
      body: RuleTestRequest,
      response: RuleTestResult,
      bodyLimit: 4 * 1024 * 1024,
      // Parsed, validated and evaluated on the rules worker thread (issue 42): only the text goes over.
      bodyText: true,
      failures: ['rate_limited'],
    },
    async ({ bodyText, principal }) => {
      await ctx.limits?.spend('rules_test_account', principal.account_id);
      return ruleTestAnswer(await testRulesOffThread(bodyText!));
    },
  );
}
