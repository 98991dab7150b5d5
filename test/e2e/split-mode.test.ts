import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { loadConfig } from '@spoor/config';
import { serviceModules } from '@spoor/host';
import { createLogger } from '@spoor/service-log';
import { runServices, type RunningProcess } from '@spoor/runtime';
import { makeTempDir, requireEngine } from '@spoor/testkit';
import { modeEnv } from '../support/engine-env.js';
import { post, registerProject, waitFor } from '../support/spoor-harness.js';

const ORIGIN = 'https://split.example';

describe('Split deployment: services alone, consumers sharing work through groups', function () {
  this.timeout(180_000);
  const processes: RunningProcess[] = [];
  let env: Record<string, string>;

  const start = async (services: string) => {
    const config = loadConfig({ ...env, SPOOR_SERVICES: services, SPOOR_DATA_DIR: await makeTempDir('split') });
    const p = await runServices(config, serviceModules, createLogger(services, 'error'));
    processes.push(p);
    return p;
  };

  before(async function () {
    const e = await modeEnv('kafka', await makeTempDir('split'));
    requireEngine(this, e ? 'ok' : null, 'kafka mode engines');
    env = e!;
  });
  after(async () => {
    for (const p of processes.reverse()) await p.stop();
  });

  it('runs ingest, two enrichers and two sessionizers as separate instances, each event once', async () => {
    const ingest = await start('ingest');
    const enrichers = [await start('enricher'), await start('enricher')];
    const sessionizers = [await start('sessionizer'), await start('sessionizer')];
    expect(ingest.http).to.not.equal(null);
    expect(enrichers[0]!.http, 'a consumer-only process serves no HTTP').to.equal(null);
    const project = await registerProject(ingest.adapters.store, ORIGIN, 'split/web');
    const sessionIds = Array.from({ length: 40 }, () => `s-${randomUUID()}`);
    let sent = 0;
    const wave = async () => {
      const events = sessionIds.map((session_id) => ({
        project: 'split/web',
        action: 'click',
        timestamp: Date.now(),
        session_id,
        payload: { n: sent },
      }));
      const res = await post(`${ingest.http!.url}/v1/event/batch`, { events }, { origin: ORIGIN });
      expect(res.status).to.equal(200);
      sent += events.length;
    };
    const worked = (p: RunningProcess) => p.services[0]!.stats!()['enriched'] ?? 0;
    // Waves until the group has rebalanced and both enrichers have taken partitions.
    await waitFor(
      async () => (await wave(), enrichers.map(worked)),
      (n) => n.every((x) => x > 0),
      90_000,
      'both enrichers to take work',
    );
    const store = ingest.adapters.store;
    await waitFor(
      () => store.events.countEnriched(project.project_id),
      (n) => n === sent,
      60_000,
      'every event enriched',
    );
    const sessions = await waitFor(
      () => store.sessions.list(project.project_id, { limit: 1000 }),
      (s) => s.reduce((n, x) => n + x.event_count, 0) === sent,
      60_000,
      'session summaries to count every event',
    );
    expect(sessions).to.have.length(40);
    expect(await store.events.countRaw(project.project_id)).to.equal(sent);
    const handled = sessionizers.map((p) => p.services[0]!.stats!()['events'] ?? 0);
    expect(
      handled.reduce((a, b) => a + b, 0),
      'sessionizers applied each event once',
    ).to.equal(sent);
  });
});
