// GET /v1/live (issue 18; docs/analytics.md, Live view): Server-Sent Events of the project's
// live snapshot. Everything that can fail — credentials, parameters, the project, the caps on
// open streams — is checked before the stream starts, so those answers are the usual JSON
// errors. Once open, the stream's credential and project are checked again before each snapshot
// (live-access.ts), and a stream whose access ended gets an `end` event and is closed.
//
// Served on the plain node:http path, before express (libs/http FastLane.addStream; issue 42,
// target 4): a stream holds its request and response for as long as it is open, and under express
// each of those carried a hidden class of its own and express' per-request state. The express
// route below runs the same handler for what the lane leaves to express (a trailing slash).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Authenticator } from '@spoor/auth';
import { parseOr422, type FastStreamHandler } from '@spoor/http';
import { LIVE_LIMITS, LiveQuery, LiveSnapshotSchema, failuresOf } from '@spoor/schemas';
import type { Store } from '@spoor/store';
import { EVENT_STREAM_TYPE, EventStream } from '../live/event-stream.js';
import { liveGrant } from '../live/live-access.js';
import type { LiveHub, LiveSeat } from '../live/live-hub.js';
import { errorResponses, operationId, type RouteContext } from '../operation-route.js';
import { scopedProject } from '../project-scope.js';

const PATH = '/v1/live';

export interface LiveRouteDeps {
  store: Store;
  authenticator: Authenticator;
  hub: LiveHub;
}

/** Declares GET /v1/live on the router and in the API document; answers the same handler for the fast lane. */
export function liveRoutes(ctx: RouteContext, deps: LiveRouteDeps): { path: string; handler: FastStreamHandler } {
  registerLiveOperation(ctx);
  const handler = liveAnswer(deps);
  ctx.router.get(PATH, async (req, res) => {
    // express' cors middleware has set the CORS headers on this response already.
    await handler(req, res, req.query, {});
    // Routing is over for this request; express' `req.next` would keep its routers' closures (and
    // what they hold) for as long as the stream is open (issue 42, item 4).
    req.next = undefined;
    res.locals = {};
  });
  return { path: PATH, handler };
}

/**
 * The answer on a bare request and response. The steps and their order are a scoped operation's
 * (operation-route.ts, auth-guard.ts): the credential (401), the query (422), the project and the
 * viewer role on it (404, 403), then the caps (429). Bearer credentials only, never a token in the
 * URL (it would end up in proxy and access logs): the dashboard and the CLI read the stream with
 * fetch(), which sends the Authorization header.
 */
function liveAnswer({ store, authenticator, hub }: LiveRouteDeps): FastStreamHandler {
  return async (req: IncomingMessage, res: ServerResponse, rawQuery: unknown, headers: Record<string, string>) => {
    const principal = await authenticator.authenticate(req.headers.authorization);
    const query = parseOr422(LiveQuery, rawQuery, 'query');
    const project = await scopedProject(store, principal, query.origin, query.project, 'viewer');
    // HEAD: the headers without a stream that would never end.
    if (req.method === 'HEAD') return void res.writeHead(200, { ...headers, 'Content-Type': EVENT_STREAM_TYPE }).end();
    const release = hub.admit(principal.account_id);
    let seat: LiveSeat | undefined;
    const stream: EventStream = new EventStream(
      req,
      res,
      LIVE_LIMITS.retryMs,
      () => {
        if (seat) hub.leave(seat, stream);
        release();
      },
      headers,
    );
    seat = hub.join(project, liveGrant(req.headers.authorization, project), stream);
  };
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
