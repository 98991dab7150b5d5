// How long until an acknowledged event is readable (issue 41, target 4): one event at a time
// with a fresh session id through POST /v1/event, then GET /v1/sessions/{id}/events every 20 ms
// until it lists the event. Timed from the ingest 200 to the answer that lists it.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { benchEventBody, USER_AGENT } from '../ingest/bench-event.js';
import type { CostAccount } from './cost-account.js';

const PROBES_PER_SEC = 4;
const POLL_MS = 20;
/** A probe not readable by then counts as never readable. */
const GIVE_UP_MS = 30_000;

export interface Readability {
  /** Probes sent; the others below are counts of them. */
  probes: number;
  readable: number;
  /** Ingest answered anything but 200. */
  refused: number;
  /** Not readable within GIVE_UP_MS. */
  neverReadable: number;
  p50Ms: number | null;
  p99Ms: number | null;
  maxMs: number | null;
  /** The first few failures, verbatim. */
  failures: string[];
}

/** Posts one event of `sessionId`; its event_id on 200, else the status and body. */
export async function postEvent(
  url: string,
  account: CostAccount,
  sessionId: string,
): Promise<{ eventId: string } | { status: number; body: string }> {
  const event = JSON.parse(benchEventBody(0, Date.now(), account)) as Record<string, unknown>;
  const res = await fetch(`${url}/v1/event`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: account.origin, 'user-agent': USER_AGENT },
    body: JSON.stringify({ ...event, session_id: sessionId }),
  });
  const body = await res.text();
  if (res.status !== 200) return { status: res.status, body: body.slice(0, 300) };
  return { eventId: (JSON.parse(body) as { event_ids: string[] }).event_ids[0]! };
}

async function lists(url: string, account: CostAccount, sessionId: string, eventId: string): Promise<boolean> {
  const query = new URLSearchParams({ origin: account.origin, project: account.project });
  const res = await fetch(`${url}/v1/sessions/${encodeURIComponent(sessionId)}/events?${query}`, {
    headers: { authorization: `Bearer ${account.token}` },
  });
  // 404 until the sessionizer stored the session's summary.
  if (res.status !== 200) {
    await res.body?.cancel();
    if (res.status === 404) return false;
    throw new Error(`GET /v1/sessions/…/events answered ${res.status}`);
  }
  const { events } = (await res.json()) as { events: Array<{ event_id: string }> };
  return events.some((e) => e.event_id === eventId);
}

/** Milliseconds from the ingest 200 until the event is listed; a string says why not. */
async function oneProbe(url: string, account: CostAccount, runId: string, n: number): Promise<number | string> {
  const sessionId = `cost-probe-${runId}-${n}`;
  const posted = await postEvent(url, account, sessionId);
  if (!('eventId' in posted)) return `ingest answered ${posted.status}: ${posted.body}`;
  const acked = performance.now();
  for (;;) {
    const polled = performance.now();
    if (await lists(url, account, sessionId, posted.eventId)) return performance.now() - acked;
    if (performance.now() - acked > GIVE_UP_MS) return `not readable after ${GIVE_UP_MS} ms`;
    await sleep(Math.max(0, POLL_MS - (performance.now() - polled)));
  }
}

function percentile(sorted: number[], p: number): number | null {
  return sorted.length === 0 ? null : sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)]!;
}

/** PROBES_PER_SEC probes a second for `seconds`, each polled until readable; resolves when all ended. */
export async function measureReadability(url: string, account: CostAccount, seconds: number): Promise<Readability> {
  const runId = randomUUID().slice(0, 8);
  const probes: Array<Promise<number | string>> = [];
  const start = performance.now();
  for (let n = 0; n < seconds * PROBES_PER_SEC; n++) {
    await sleep(Math.max(0, start + (n * 1000) / PROBES_PER_SEC - performance.now()));
    probes.push(oneProbe(url, account, runId, n).catch((err: Error) => `probe failed: ${err.message}`));
  }
  const outcomes = await Promise.all(probes);
  const times = outcomes.filter((o): o is number => typeof o === 'number').sort((a, b) => a - b);
  const failures = outcomes.filter((o): o is string => typeof o === 'string');
  return {
    probes: outcomes.length,
    readable: times.length,
    refused: failures.filter((f) => f.startsWith('ingest answered')).length,
    neverReadable: failures.filter((f) => f.startsWith('not readable')).length,
    p50Ms: percentile(times, 0.5),
    p99Ms: percentile(times, 0.99),
    maxMs: times.length === 0 ? null : times[times.length - 1]!,
    failures: failures.slice(0, 3),
  };
}
