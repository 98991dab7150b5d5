// Backpressure (issue 16, item 6): when the consumers fall behind by SPOOR_INGEST_MAX_LAG raw
// events, ingest answers 503 with Retry-After instead of piling more onto the backlog; its memory
// holds while it refuses, and once the consumers caught up the same clients are taken again,
// nothing acknowledged lost or counted twice. The slowest consumer there is: none (ingest alone).
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { MODES } from '../support/engine-env.js';
import { LoadClient, modeDeployment, setCheck, sleep, SpoorProcess } from '../support/fault-rig.js';
import { waitFor } from '../support/spoor-harness.js';

const MAX_LAG = 2_000;
const MiB = 1024 * 1024;

function rssBytes(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'))!;
  return Number(line.replace(/\D+/g, '')) * 1024;
}

for (const mode of MODES) {
  describe(`Backpressure: ${mode}`, function () {
    this.timeout(300_000);

    it('refuses with 503 and Retry-After once the enricher is SPOOR_INGEST_MAX_LAG behind, holds its memory, and takes the clients back once it caught up', async function () {
      const { url, env, config, project } = await modeDeployment(this, mode, { SPOOR_INGEST_MAX_LAG: String(MAX_LAG) });
      const ingest = new SpoorProcess({ ...env, SPOOR_SERVICES: 'ingest' }, url);
      const spoor = new SpoorProcess(env, url);
      const load = new LoadClient(url, 10_000, 5, 'bp');
      try {
        await ingest.start();
        await refusesWhenBehind(ingest, load);
        await ingest.kill('SIGTERM');
        // The consumers are back: the backlog drains and the refused batches are taken.
        await spoor.start();
        await load.retryUnacked(120_000);
        await spoor.drained();
      } finally {
        await load.stop();
        await ingest.kill('SIGKILL');
        await spoor.kill('SIGTERM');
      }
      const check = await setCheck(config, project.project_id, load.acked);
      console.log(
        `      acknowledged ${check.acked}, stored ${check.stored}, lost ${check.lost.length}, duplicates ${check.duplicates}, enriched ${check.enriched}, counted in sessions ${check.sessionEvents}`,
      );
      expect(check.lost).to.deep.equal([]);
      expect(check.duplicates).to.equal(0);
      expect(check.stored).to.equal(check.acked);
      expect(check.enriched).to.equal(check.acked);
      expect(check.sessionEvents).to.equal(check.acked);
    });
  });
}

/** Load on ingest alone until it refuses; then what it answered, kept and held in memory. */
async function refusesWhenBehind(ingest: SpoorProcess, load: LoadClient): Promise<void> {
  load.start(8, 0, true);
  await waitFor(
    async () => load.answers.filter((a) => a.status === 503).length,
    (n) => n >= 20,
    90_000,
    'ingest to refuse',
  );
  const ackedAtRefusal = load.acked.size;
  const rssAtRefusal = rssBytes(ingest.pid!);
  await sleep(3_000);
  const rssLater = rssBytes(ingest.pid!);
  await load.stop();
  const refused = load.answers.filter((a) => a.status === 503);
  console.log(
    `      acknowledged ${load.acked.size} (${ackedAtRefusal} when refusals began), refused ${refused.length} batches; RSS ${(rssAtRefusal / MiB).toFixed(0)} → ${(rssLater / MiB).toFixed(0)} MiB`,
  );
  expect(
    load.answers.filter((a) => a.status !== 200 && a.status !== 503).map((a) => a.status),
    'every answer a 200 or a 503',
  ).to.deep.equal([]);
  expect(
    refused.filter((a) => a.retryAfter === null),
    'each 503 says when to retry',
  ).to.deep.equal([]);
  expect(refused.filter((a) => a.retryAfter === '5').length, "the backlog's 503s").to.be.greaterThan(0);
  // The backlog stopped near the bound: what the 100 ms lag reading let through, no more.
  expect(load.acked.size).to.be.at.least(MAX_LAG);
  expect(load.acked.size).to.be.at.most(2 * MAX_LAG);
  expect(load.acked.size - ackedAtRefusal, 'accepted after refusals began').to.be.at.most(MAX_LAG / 2);
  expect(rssLater - rssAtRefusal, 'memory while refusing').to.be.below(64 * MiB);
}
