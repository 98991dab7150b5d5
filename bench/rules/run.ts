// `node dist/bench/rules/run.js`: the event loop while POST /v1/rules/test runs heavy work
// (issue 42, item 2). The probe of the issue: 900 sessions each holding a 1,500-item list and
// one rule that is an `or` of 450 `in`s over it (every `in` scans the whole list). The
// all-in-one process (embedded) runs as a child; this process sends the probe ROUNDS times, one
// after the other, while a second loop GETs /healthz every 10 ms, and prints /healthz latency
// idle (the baseline, same run) and under the probe (target: p99 ≤ 50 ms), with each probe's
// status, duration and message.
//   node dist/bench/rules/run.js [--rounds 5] [--sessions 900] [--items 1500] [--ins 450]
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, ServerChild } from '../ingest/server-child.js';
import { spoorEnv } from '../ingest/spoor-deployment.js';
import { describeMachine, machineInfo } from '../ingest/machine-info.js';
import { postJson } from '../shared/api-post.js';
import { parseFlags, positiveInt, UsageError } from '../shared/bench-flags.js';

const HOST_MAIN = fileURLToPath(new URL('../../../services/host/dist/src/main.js', import.meta.url));
const PROBE_INTERVAL_MS = 10;
const IDLE_MS = 2_000;
const TARGET_P99_MS = 50;
const USAGE = 'usage: node dist/bench/rules/run.js [--rounds 5] [--sessions 900] [--items 1500] [--ins 450]';

interface Options {
  rounds: number;
  sessions: number;
  items: number;
  ins: number;
}

function options(): Options {
  const v = parseFlags(process.argv.slice(2), ['rounds', 'sessions', 'items', 'ins'] as const, USAGE);
  return {
    rounds: positiveInt('--rounds', v.rounds ?? '5', USAGE),
    sessions: positiveInt('--sessions', v.sessions ?? '900', USAGE),
    items: positiveInt('--items', v.items ?? '1500', USAGE),
    ins: positiveInt('--ins', v.ins ?? '450', USAGE),
  };
}

/** The probe: no needle is in the list, so each `in` scans all of it. */
export function probeBody(o: Pick<Options, 'sessions' | 'items' | 'ins'>): string {
  const list = new Array<number>(o.items).fill(0);
  const sessions = Array.from({ length: o.sessions }, (_, i) => ({ session_id: `s${i}`, list }));
  const logic = { or: Array.from({ length: o.ins }, (_, i) => ({ in: [i + 1, { var: 'list' }] })) };
  return JSON.stringify({ sessions, rules: `- rule_id: heavy\n  logic: ${JSON.stringify(logic)}\n` });
}

/** GETs /healthz every PROBE_INTERVAL_MS until stopped; answers each latency in ms. */
function healthProbe(url: string): { stop(): Promise<number[]> } {
  const latencies: number[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const t0 = performance.now();
      const res = await fetch(`${url}/healthz`);
      await res.arrayBuffer();
      latencies.push(performance.now() - t0);
      await new Promise((r) => setTimeout(r, PROBE_INTERVAL_MS));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return latencies;
    },
  };
}

function quantile(sorted: number[], q: number): number {
  return sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
}

function describeLatencies(label: string, ms: number[]): string {
  const s = [...ms].sort((a, b) => a - b);
  const f = (n: number) => n.toFixed(1);
  return `${label}: ${s.length} requests, p50 ${f(quantile(s, 0.5))} ms, p99 ${f(quantile(s, 0.99))} ms, max ${f(s[s.length - 1] ?? NaN)} ms, over ${TARGET_P99_MS} ms: ${
    s
      .filter((x) => x > TARGET_P99_MS)
      .map(f)
      .join(', ') || 'none'
  }`;
}

async function sendProbe(url: string, token: string, body: string) {
  const t0 = performance.now();
  const res = await fetch(`${url}/v1/rules/test`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body,
  });
  const text = await res.text();
  const ms = performance.now() - t0;
  let msg = text.slice(0, 160);
  try {
    const parsed = JSON.parse(text) as { detail?: Array<{ msg: string }> };
    if (parsed.detail?.[0]) msg = parsed.detail[0].msg;
    else if (res.status === 200) msg = 'results';
  } catch {
    // not JSON: keep the text
  }
  return { status: res.status, ms, msg };
}

async function main(o: Options): Promise<void> {
  const port = await freePort();
  const dataDir = await mkdtemp(join(tmpdir(), 'spoor-bench-rules-'));
  const env = (await spoorEnv('embedded', dataDir, port))!;
  const url = `http://127.0.0.1:${port}`;
  const child = new ServerChild('spoor', HOST_MAIN, [], { ...env, SPOOR_RATE_RULES_TEST: '1000' });
  try {
    await child.waitUntilServing(`${url}/healthz`, 120_000);
    const { id_token } = await postJson<{ id_token: string }>(`${url}/v1/auth/signup`, {
      email: `bench-rules-${Date.now()}@example.com`,
      password: 'bench-rules-password',
    });
    const body = probeBody(o);
    process.stdout.write(`${describeMachine(machineInfo())}\n`);
    process.stdout.write(
      `probe: ${o.sessions} sessions × ${o.items}-item list, an or of ${o.ins} ins; body ${(body.length / 1048576).toFixed(2)} MiB\n`,
    );

    const idle = healthProbe(url);
    await new Promise((r) => setTimeout(r, IDLE_MS));
    const baseline = await idle.stop();

    const loaded = healthProbe(url);
    const calls = [];
    for (let i = 0; i < o.rounds; i++) calls.push(await sendProbe(url, id_token, body));
    const underProbe = await loaded.stop();

    for (const [i, c] of calls.entries())
      process.stdout.write(`  probe ${i + 1}: ${c.status} in ${c.ms.toFixed(0)} ms: ${c.msg}\n`);
    process.stdout.write(`${describeLatencies('/healthz idle (baseline)', baseline)}\n`);
    process.stdout.write(`${describeLatencies('/healthz under the probe', underProbe)}\n`);
    const p99 = quantile(
      [...underProbe].sort((a, b) => a - b),
      0.99,
    );
    process.stdout.write(`target p99 ≤ ${TARGET_P99_MS} ms: ${p99 <= TARGET_P99_MS ? 'met' : 'MISSED'}\n`);
  } finally {
    await child.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

let parsed: Options;
try {
  parsed = options();
} catch (err) {
  if (!(err instanceof UsageError)) throw err;
  process.stderr.write(`${err.message}\n`);
  process.exit(2);
}
await main(parsed);
