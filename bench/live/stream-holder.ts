// The viewers of bench:live, in a process of their own (forked by run.ts) so that reading N event
// streams never delays the /healthz probes that run.ts times. Opens `streams` GET /v1/live
// connections with node:http (no agent pooling), reads and counts what they send, and closes
// them all on request. Talks to run.ts over the fork's IPC channel.
import { request, type ClientRequest } from 'node:http';

export interface HolderStart {
  url: string;
  token: string;
  /** Each stream names one of these projects, in turn. */
  scopes: Array<{ origin: string; project: string }>;
  streams: number;
  /** Connections being opened at once. */
  concurrency: number;
}

export interface HolderOpened {
  kind: 'opened';
  /** Streams answered 200. */
  open: number;
  /** Refusals by status. */
  refused: Record<string, number>;
  ms: number;
}

export interface HolderCounts {
  kind: 'counts';
  snapshots: number;
  bytes: number;
  /** Streams the server ended. */
  endedByServer: number;
}

const live: ClientRequest[] = [];
let snapshots = 0;
let bytes = 0;
let endedByServer = 0;
let closing = false;

function openOne(o: HolderStart, i: number): Promise<number> {
  const scope = o.scopes[i % o.scopes.length]!;
  const url = new URL('/v1/live', o.url);
  url.searchParams.set('origin', scope.origin);
  url.searchParams.set('project', scope.project);
  return new Promise((resolve) => {
    const req = request(url, { headers: { authorization: `Bearer ${o.token}` }, agent: false }, (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        return resolve(res.statusCode ?? 0);
      }
      live.push(req);
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        bytes += chunk.length;
        for (let at = chunk.indexOf('event: snapshot'); at >= 0; at = chunk.indexOf('event: snapshot', at + 1))
          snapshots++;
      });
      res.on('end', () => void (closing || endedByServer++));
      res.on('error', () => {});
      resolve(200);
    });
    req.on('error', () => resolve(0));
    req.end();
  });
}

async function openAll(o: HolderStart): Promise<HolderOpened> {
  const t0 = Date.now();
  const refused: Record<string, number> = {};
  let open = 0;
  let next = 0;
  const worker = async () => {
    while (next < o.streams) {
      const status = await openOne(o, next++);
      if (status === 200) open++;
      else refused[String(status)] = (refused[String(status)] ?? 0) + 1;
    }
  };
  await Promise.all(Array.from({ length: o.concurrency }, worker));
  return { kind: 'opened', open, refused, ms: Date.now() - t0 };
}

process.on('message', (msg: { kind: 'start'; start: HolderStart } | { kind: 'counts' } | { kind: 'close' }) => {
  if (msg.kind === 'start') void openAll(msg.start).then((r) => process.send!(r));
  else if (msg.kind === 'counts') process.send!({ kind: 'counts', snapshots, bytes, endedByServer } as HolderCounts);
  else {
    closing = true;
    for (const req of live) req.destroy();
    live.length = 0;
    process.send!({ kind: 'closed' }, () => process.exit(0));
  }
});
