import { ScopeQuery, TaggedSessions, TagList, TagPath, TagSessionsQuery } from '@spoor/schemas';
import type { Store } from '@spoor/store';
import { defineOperation, type RouteContext } from '../operation-route.js';
import { scopedProject } from '../project-scope.js';

export function tagRoutes(ctx: RouteContext, store: Store): void {
  defineOperation(ctx, { method: 'get', path: '/v1/tags', summary: 'Distinct tags of the project with last-seen times', tag: 'tags', auth: true, query: ScopeQuery, response: TagList, failures: [404] }, async ({ query, principal }) => {
    const project = await scopedProject(store, principal, query.origin, query.project);
    return { tags: await store.tags.list(project.project_id) };
  });

  defineOperation(ctx, { method: 'get', path: '/v1/tags/{tag}', summary: 'Sessions tagged within a time window, newest first', tag: 'tags', auth: true, query: TagSessionsQuery, params: TagPath, response: TaggedSessions, failures: [404] }, async ({ query, params, principal }) => {
    const project = await scopedProject(store, principal, query.origin, query.project);
    return { tag: params.tag, sessions: await store.tags.sessions(project.project_id, params.tag, query) };
  });
}
