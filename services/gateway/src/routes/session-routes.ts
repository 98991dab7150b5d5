import { errors } from '@spoor/http';
import { AttributeMap, EnrichedEventList, ScopeQuery, SessionList, SessionListQuery, SessionPath, SessionSummarySchema, TagList } from '@spoor/schemas';
import type { SessionState } from '@spoor/schemas';
import type { Store } from '@spoor/store';
import { defineOperation, type RouteContext } from '../operation-route.js';
import { scopedProject } from '../project-scope.js';
import type { Principal } from '../auth-guard.js';

const failures = [404];

/** The public summary: the sessionizer's state without its bookkeeping. */
function publicSummary(s: SessionState, tags: string[]) {
  const { seen: _seen, project_id: _project, ...summary } = s;
  return { ...summary, tags: [...new Set([...summary.tags, ...tags])] };
}

async function sessionOf(store: Store, principal: Principal, q: { origin: string; project: string }, sessionId: string) {
  const project = await scopedProject(store, principal, q.origin, q.project);
  const session = await store.sessions.get(project.project_id, sessionId);
  if (!session) throw errors.notFound('Session not found');
  return { project, session };
}

export function sessionRoutes(ctx: RouteContext, store: Store): void {
  defineOperation(ctx, { method: 'get', path: '/v1/sessions', summary: 'Session identifiers, newest first', tag: 'sessions', auth: true, query: SessionListQuery, response: SessionList, failures }, async ({ query, principal }) => {
    const project = await scopedProject(store, principal, query.origin, query.project);
    return { sessions: await store.sessions.list(project.project_id, query) };
  });

  defineOperation(ctx, { method: 'get', path: '/v1/sessions/{session_id}', summary: 'Full session summary', tag: 'sessions', auth: true, query: ScopeQuery, params: SessionPath, response: SessionSummarySchema, failures }, async ({ query, params, principal }) => {
    const { project, session } = await sessionOf(store, principal, query, params.session_id);
    const tags = await store.tags.ofSession(project.project_id, session.session_id);
    return publicSummary(session, tags.map((t) => t.tag));
  });

  defineOperation(ctx, { method: 'get', path: '/v1/sessions/{session_id}/events', summary: 'Enriched events of the session, oldest first', tag: 'sessions', auth: true, query: ScopeQuery, params: SessionPath, response: EnrichedEventList, failures }, async ({ query, params, principal }) => {
    const { project } = await sessionOf(store, principal, query, params.session_id);
    return { events: await store.events.sessionEvents(project.project_id, params.session_id) };
  });

  defineOperation(ctx, { method: 'get', path: '/v1/sessions/{session_id}/attributes', summary: 'Attributes extracted for the session', tag: 'sessions', auth: true, query: ScopeQuery, params: SessionPath, response: AttributeMap, failures }, async ({ query, params, principal }) => {
    const { session } = await sessionOf(store, principal, query, params.session_id);
    return { attributes: session.attributes };
  });

  defineOperation(ctx, { method: 'get', path: '/v1/sessions/{session_id}/tags', summary: 'Tags of the session', tag: 'sessions', auth: true, query: ScopeQuery, params: SessionPath, response: TagList, failures }, async ({ query, params, principal }) => {
    const { project } = await sessionOf(store, principal, query, params.session_id);
    return { tags: await store.tags.ofSession(project.project_id, params.session_id) };
  });
}
