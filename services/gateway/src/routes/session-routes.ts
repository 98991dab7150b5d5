import { errors } from '@spoor/http';
import {
  AddTagRequest,
  AttributeMap,
  EnrichedEventList,
  ScopeQuery,
  TagChange,
  TagPath,
  SessionList,
  SessionListQuery,
  SessionPath,
  SessionSummarySchema,
  TagList,
} from '@spoor/schemas';
import type {
  ProjectRecord,
  SessionClassification,
  SessionListInclude,
  SessionListItem,
  SessionState,
} from '@spoor/schemas';
import type { Store } from '@spoor/store';
import { defineOperation, type RouteContext } from '../operation-route.js';
import { requireVerified, scopedProject } from '../project-scope.js';
import type { Principal } from '../auth-guard.js';
import { visibleAttributes, type AttributeFilter } from '../visible-attributes.js';

const failures = ['not_found'] as const;

/** A session's tags: those its state carries and the standing tag facts. */
const tagsOf = (state: SessionState | undefined, facts: string[]) => [...new Set([...(state?.tags ?? []), ...facts])];

const classificationOf = (verdict: SessionClassification | null) =>
  verdict ? { rule_ids: verdict.rule_ids, labels: verdict.labels, classified_at: verdict.classified_at } : null;

/** The public summary: the sessionizer's state without its bookkeeping. */
function publicSummary(
  s: SessionState,
  tags: string[],
  verdict: SessionClassification | null,
  visible: AttributeFilter,
) {
  const { seen: _seen, project_id: _project, ...summary } = s;
  return {
    ...summary,
    attributes: visible(s.attributes),
    tags: tagsOf(s, tags),
    classification: classificationOf(verdict),
  };
}

/**
 * What `include` asks for, three reads for the whole page whatever its length: the dashboard's
 * list made one request per listed session (up to 50) for tags and classification (issue 15).
 */
async function withIncludes(
  store: Store,
  project: ProjectRecord,
  sessions: SessionListItem[],
  include: Set<SessionListInclude>,
) {
  if (include.size === 0 || sessions.length === 0) return sessions;
  const whole = include.has('summary');
  const wantTags = whole || include.has('tags');
  const wantVerdict = whole || include.has('classification');
  const projectId = project.project_id;
  const ids = sessions.map((s) => s.session_id);
  const [states, tagRows, verdicts, visible] = await Promise.all([
    wantTags ? store.sessions.getMany(projectId, ids) : [],
    wantTags ? store.tags.ofSessions(projectId, ids) : [],
    wantVerdict ? store.classifications.getMany(projectId, ids) : [],
    whole ? visibleAttributes(store, project) : null,
  ]);
  const stateOf = new Map(states.map((s) => [s.session_id, s]));
  const verdictOf = new Map(verdicts.map((v) => [v.session_id, v]));
  const factsOf = new Map<string, string[]>();
  for (const t of tagRows) factsOf.set(t.session_id, [...(factsOf.get(t.session_id) ?? []), t.tag]);
  return sessions.map((item) => {
    const state = stateOf.get(item.session_id);
    const facts = factsOf.get(item.session_id) ?? [];
    const verdict = verdictOf.get(item.session_id) ?? null;
    if (whole && state) return publicSummary(state, facts, verdict, visible!);
    return {
      ...item,
      ...(wantTags ? { tags: tagsOf(state, facts) } : {}),
      ...(wantVerdict ? { classification: classificationOf(verdict) } : {}),
    };
  });
}

/** The caller's project and what `read` gives of the session; 404 when there is no such session. */
async function found<S>(
  store: Store,
  principal: Principal,
  q: { origin: string; project: string },
  sessionId: string,
  read: (projectId: string, sessionId: string) => Promise<S | null>,
): Promise<{ project: ProjectRecord; session: S }> {
  const project = await scopedProject(store, principal, q.origin, q.project);
  const session = await read(project.project_id, sessionId);
  if (!session) throw errors.notFound('Session not found');
  return { project, session };
}

/** The session's whole summary, for the routes that answer from it. */
const sessionOf = (store: Store, principal: Principal, q: { origin: string; project: string }, sessionId: string) =>
  found(store, principal, q, sessionId, (p, id) => store.sessions.get(p, id));

/**
 * Only the session's time range: enough to know it exists and where its events lie, and a
 * fraction of the summary's cost on either engine (SessionRepository.span).
 */
const spanOf = (store: Store, principal: Principal, q: { origin: string; project: string }, sessionId: string) =>
  found(store, principal, q, sessionId, (p, id) => store.sessions.span(p, id));

export function sessionRoutes(ctx: RouteContext, store: Store, clock: () => number): void {
  defineOperation(
    ctx,
    {
      method: 'get',
      path: '/v1/sessions',
      summary: 'Session identifiers, newest first (with `include`, their tags, classification or whole summary)',
      tag: 'sessions',
      auth: true,
      role: 'viewer',
      query: SessionListQuery,
      response: SessionList,
      failures,
    },
    async ({ query, principal }) => {
      const project = await scopedProject(store, principal, query.origin, query.project);
      const sessions = await store.sessions.list(project.project_id, query);
      return { sessions: await withIncludes(store, project, sessions, new Set(query.include ?? [])) };
    },
  );

  defineOperation(
    ctx,
    {
      method: 'get',
      path: '/v1/sessions/{session_id}',
      summary: 'Full session summary',
      tag: 'sessions',
      auth: true,
      role: 'viewer',
      query: ScopeQuery,
      params: SessionPath,
      response: SessionSummarySchema,
      failures,
    },
    async ({ query, params, principal }) => {
      const { project, session } = await sessionOf(store, principal, query, params.session_id);
      const [tags, verdict, visible] = await Promise.all([
        store.tags.ofSession(project.project_id, session.session_id),
        store.classifications.get(project.project_id, session.session_id),
        visibleAttributes(store, project),
      ]);
      return publicSummary(
        session,
        tags.map((t) => t.tag),
        verdict,
        visible,
      );
    },
  );

  defineOperation(
    ctx,
    {
      method: 'get',
      path: '/v1/sessions/{session_id}/events',
      summary: 'Enriched events of the session, oldest first (once the domain is verified, as /v1/events/enriched)',
      tag: 'sessions',
      auth: true,
      role: 'viewer',
      query: ScopeQuery,
      params: SessionPath,
      response: EnrichedEventList,
      failures: ['domain_unverified', 'not_found'],
    },
    async ({ query, params, principal }) => {
      // Event rows carry payloads, IPs and user agents: the same DNS gate as /v1/events/enriched (issue 13).
      const { project, session: span } = await spanOf(store, principal, query, params.session_id);
      requireVerified(project);
      // The events the summary covers: its time range lets the store skip the rest of the table.
      const within = { from: span.first_event_at, to: span.last_event_at };
      const events = await store.events.sessionEvents(project.project_id, params.session_id, within);
      return { events: events.map(({ project_id: _p, ...e }) => e) };
    },
  );

  defineOperation(
    ctx,
    {
      method: 'get',
      path: '/v1/sessions/{session_id}/attributes',
      summary: 'Attributes extracted for the session',
      tag: 'sessions',
      auth: true,
      role: 'viewer',
      query: ScopeQuery,
      params: SessionPath,
      response: AttributeMap,
      failures,
    },
    async ({ query, params, principal }) => {
      const { project, session } = await sessionOf(store, principal, query, params.session_id);
      return { attributes: (await visibleAttributes(store, project))(session.attributes) };
    },
  );

  defineOperation(
    ctx,
    {
      method: 'get',
      path: '/v1/sessions/{session_id}/tags',
      summary: 'Tags of the session',
      tag: 'sessions',
      auth: true,
      role: 'viewer',
      query: ScopeQuery,
      params: SessionPath,
      response: TagList,
      failures,
    },
    async ({ query, params, principal }) => {
      const { project } = await spanOf(store, principal, query, params.session_id);
      return { tags: await store.tags.ofSession(project.project_id, params.session_id) };
    },
  );

  defineOperation(
    ctx,
    {
      method: 'post',
      path: '/v1/sessions/{session_id}/tags',
      summary: 'Tags the session by hand',
      tag: 'sessions',
      auth: true,
      role: 'editor',
      params: SessionPath,
      body: AddTagRequest,
      response: TagChange,
      failures,
    },
    async ({ body, params, principal }) => {
      const { project } = await spanOf(store, principal, body, params.session_id);
      const now = clock();
      await store.tags.add([
        {
          project_id: project.project_id,
          session_id: params.session_id,
          tag: body.tag,
          source: 'manual',
          tagged_at: now,
          removed: false,
          changed_at: now,
        },
      ]);
      return { session_id: params.session_id, tag: body.tag, tagged_at: now };
    },
  );

  defineOperation(
    ctx,
    {
      method: 'delete',
      path: '/v1/sessions/{session_id}/tags/{tag}',
      summary: 'Takes back a tag given by hand (rule tags follow their rules); answers the remaining tags',
      tag: 'sessions',
      auth: true,
      role: 'editor',
      query: ScopeQuery,
      params: SessionPath.extend(TagPath.shape),
      response: TagList,
      failures,
    },
    async ({ query, params, principal }) => {
      const { project } = await spanOf(store, principal, query, params.session_id);
      const now = clock();
      await store.tags.add([
        {
          project_id: project.project_id,
          session_id: params.session_id,
          tag: params.tag,
          source: 'manual',
          tagged_at: now,
          removed: true,
          changed_at: now,
        },
      ]);
      return { tags: await store.tags.ofSession(project.project_id, params.session_id) };
    },
  );
}
