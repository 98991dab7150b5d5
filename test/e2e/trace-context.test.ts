import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { clickhouseUrl, kafkaBrokers, redisUrl, requireEngine } from '@spoor/testkit';
import {
  deploymentEnv,
  FAULT_ORIGIN,
  FAULT_PROJECT,
  modeDeployment,
  registerFaultProject,
  SpoorProcess,
  startSplitProcess,
} from '../support/fault-rig.js';
import { waitFor } from '../support/spoor-harness.js';
import { loadConfig } from '@spoor/config';

// Issue 19: one request followed across processes by its W3C trace id. The client's
// `traceparent` is continued by ingest on the request's messages (Kafka record headers, or the
// embedded log's), passed on by the enricher to the enriched message, and listed in each
// consumer's "batch handled" line (debug level) — so an operator greps one id through the logs.

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const TRACEPARENT = `00-${TRACE_ID}-00f067aa0ba902b7-01`;

interface LogLine {
  msg?: string;
  topic?: string;
  group?: string;
  trace_ids?: string[];
}

async function batchLines(p: SpoorProcess): Promise<LogLine[]> {
  const text = await readFile(join(p.env['SPOOR_DATA_DIR']!, 'spoor.stderr.log'), 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as LogLine)
    .filter((l) => l.msg === 'batch handled');
}

/** Waits for a "batch handled" line of `p` for a topic ending in `topic` that lists the trace id. */
async function traced(p: SpoorProcess, topic: string): Promise<LogLine> {
  const lines = await waitFor(
    () => batchLines(p),
    (ls) => ls.some((l) => l.topic?.endsWith(topic) && l.trace_ids?.includes(TRACE_ID)),
    60_000,
    `a ${topic} batch line with the trace id`,
  );
  return lines.find((l) => l.topic?.endsWith(topic) && l.trace_ids?.includes(TRACE_ID))!;
}

async function send(url: string, traceparent?: string): Promise<void> {
  const res = await fetch(`${url}/v1/event`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: FAULT_ORIGIN, ...(traceparent ? { traceparent } : {}) },
    body: JSON.stringify({
      project: FAULT_PROJECT,
      action: 'click',
      timestamp: Date.now(),
      session_id: `s-${Math.random()}`,
    }),
  });
  expect(res.status, await res.text()).to.equal(200);
}

describe('Trace context: one request followed through the logs', function () {
  this.timeout(180_000);
  const processes: SpoorProcess[] = [];
  afterEach(async () => {
    await Promise.all(processes.splice(0).map((p) => p.kill('SIGTERM')));
  });

  it("embedded: the enricher's batch line carries the client's trace id; a request without one gets a trace of its own", async function () {
    const { url, env } = await modeDeployment(this, 'embedded', { SPOOR_LOG_LEVEL: 'debug' });
    const spoor = new SpoorProcess(env, url);
    processes.push(spoor);
    await spoor.start();
    await send(url, TRACEPARENT);
    await send(url);
    const line = await traced(spoor, 'events.raw');
    expect(line.group).to.match(/enricher$/);
    const all = (await batchLines(spoor))
      .filter((l) => l.topic?.endsWith('events.raw'))
      .flatMap((l) => l.trace_ids ?? []);
    expect(
      all.filter((id) => id !== TRACE_ID),
      "the other request's own trace",
    ).to.have.length.greaterThan(0);
    for (const id of all) expect(id).to.match(/^[0-9a-f]{32}$/);
  });

  it("split on Kafka: the same trace id in the enricher's and the sessionizer's processes", async function () {
    const [brokers, clickhouse, redis] = await Promise.all([kafkaBrokers(), clickhouseUrl(), redisUrl()]);
    requireEngine(this, brokers && clickhouse && redis ? 'ok' : null, 'kafka mode engines');
    const env = await deploymentEnv(brokers!, clickhouse!, redis!);
    await registerFaultProject(loadConfig(env));
    const start = (kind: string) => startSplitProcess(env, kind, processes, 'debug');
    const [ingest, enricher, sessionizer] = [
      await start('ingest'),
      await start('enricher'),
      await start('sessionizer'),
    ];
    await send(ingest.url, TRACEPARENT);
    expect((await traced(enricher, 'events.raw')).group).to.match(/enricher$/);
    expect((await traced(sessionizer, 'events.enriched')).group).to.match(/sessionizer$/);
  });
});
