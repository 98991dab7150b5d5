// GET /v1/live (issue 18; docs/analytics.md, Live view): Server-Sent Events of the project's
// live snapshot. Everything that can fail — credentials, parameters, the project, the caps on
// open streams — is checked before the stream starts, so those answers are the usual JSON
// errors. Once open, the stream's credential and project are checked again before each snapshot
// (live-access.ts), and a stream whose access ended gets an `end` event and is closed.
import { parseOr422 } from '@spoor/http';
import { LIVE_LIMITS, LiveQuery, LiveSnapshotSchema, failuresOf } from '@spoor/schemas';
import type { Store } from '@spoor/store';
import type { Principal } from '../auth-guard.js';
import { openEventStream } from '../live/event-stream.js';
import { liveGrant } from '../live/live-access.js';
import type { LiveHub } from '../live/live-hub.js';
import { errorResponses, operationId, type RouteContext } from '../operation-route.js';
import { scopedProject } from '../project-scope.js';

const PATH = '/v1/live';

export function liveRoutes(ctx: RouteContext, store: Store, hub: LiveHub): void {
  registerLiveOperation(ctx);
  // Bearer credentials only, never a token in the URL (it would end up in proxy and access logs):
  // the dashboard and the CLI read the stream with fetch(), which sends the Authorization header.
  ctx.router.get(PATH, ctx.authenticate, async (req, res) => {
    const query = parseOr422(LiveQuery, req.query, 'query');
    const principal = res.locals['principal'] as Principal;
    const project = await scopedProject(store, principal, query.origin, query.project, 'viewer');
    // express routes HEAD here too: the headers without a stream that would never end.
    if (req.method === 'HEAD') return void res.status(200).type('text/event-stream').end();
    const release = hub.admit(principal.account_id);
    let leave = () => {};
    const stream = openEventStream(req, res, LIVE_LIMITS.retryMs, () => (leave(), release()));
    leave = hub.join(project, liveGrant(req.headers.authorization, project), stream);
    // Routing is over for this request; express' `req.next` would keep its routers' closures (and
    // what they hold) for as long as the stream is open (issue 42, item 4).
    req.next = undefined;
    res.locals = {};
  });
}

/** An event stream, not JSON, so not a defineOperation: documented here like the export download. */
function registerLiveOperation(ctx: RouteContext): void {
  ctx.registry.registerPath({
    method: 'get',
    path: PATH,
    operationId: operationId('get', PATH),
    summary: `The live view as Server-Sent Events: a \`snapshot\` event every ${LIVE_LIMITS.intervalMs / 1000} s whose data is a LiveSnapshot (active visitors of the last 5 minutes, the pages they are on, the newest events), \`retry: ${LIVE_LIMITS.retryMs}\`, and a comment when the stream was quiet for ${LIVE_LIMITS.heartbeatMs / 1000} s. Bearer credentials in the Authorization header only (read it with fetch(); docs/analytics.md). When the credential stops being valid (logout, API key or account deleted) or the project is deleted, an \`end\` event whose data is {"status", "detail"} (what a new request would be answered) closes the stream within seconds. Open streams are capped per account and per server (429).`,
    tags: ['analytics'],
    security: [{ bearerAuth: [] }],
    'x-spoor-role': 'viewer',
    request: { query: LiveQuery },
    responses: {
      200: {
        description:
          'A text/event-stream; each `data:` line of a `snapshot` event is one LiveSnapshot as JSON, of an `end` event {"status", "detail"}',
        content: {
          'text/event-stream': {
            schema: {
              type: 'string',
              description:
                'event: snapshot / id: <at> / data: <LiveSnapshot JSON>; last, if access ended: event: end / data: {"status", "detail"}',
            },
          },
        },
      },
      ...errorResponses(
        failuresOf({ method: 'get', auth: true, role: 'viewer', failures: ['not_found', 'too_many_live_streams'] }),
      ),
    },
  });
  // The snapshot's schema has no operation of its own: registered so the typed client names it.
  ctx.registry.register('LiveSnapshot', LiveSnapshotSchema);
}
