import { ActionList, EnrichedEventList, EventListQuery, RawEventList, ScopeQuery } from '@spoor/schemas';
import type { Store } from '@spoor/store';
import { defineOperation, type RouteContext } from '../operation-route.js';
import { requireVerified, scopedProject } from '../project-scope.js';

/** Raw and enriched listings wait for domain verification (DESIGN.md, Projects); actions do not. */
export function eventRoutes(ctx: RouteContext, store: Store): void {
  defineOperation(
    ctx,
    {
      method: 'get',
      path: '/v1/events',
      aliases: ['/v1/event'],
      summary: 'Raw events as received, oldest first',
      tag: 'events',
      auth: true,
      role: 'viewer',
      query: EventListQuery,
      response: RawEventList,
      failures: ['domain_unverified', 'not_found'],
    },
    async ({ query, principal }) => {
      const project = await scopedProject(store, principal, query.origin, query.project);
      requireVerified(project);
      const events = await store.events.listRaw(project.project_id, query);
      return { events: events.map(({ project_id: _p, ...e }) => e) };
    },
  );

  defineOperation(
    ctx,
    {
      method: 'get',
      path: '/v1/events/enriched',
      aliases: ['/v1/event/enriched'],
      summary: 'Events with browser, location and query fields',
      tag: 'events',
      auth: true,
      role: 'viewer',
      query: EventListQuery,
      response: EnrichedEventList,
      failures: ['domain_unverified', 'not_found'],
    },
    async ({ query, principal }) => {
      const project = await scopedProject(store, principal, query.origin, query.project);
      requireVerified(project);
      const events = await store.events.listEnriched(project.project_id, query);
      return { events: events.map(({ project_id: _p, ...e }) => e) };
    },
  );

  defineOperation(
    ctx,
    {
      method: 'get',
      path: '/v1/events/actions',
      aliases: ['/v1/event/actions'],
      summary: 'Distinct action names with last-seen times',
      tag: 'events',
      auth: true,
      role: 'viewer',
      query: ScopeQuery,
      response: ActionList,
      failures: ['not_found'],
    },
    async ({ query, principal }) => {
      const project = await scopedProject(store, principal, query.origin, query.project);
      return { actions: await store.events.listActions(project.project_id) };
    },
  );
}
