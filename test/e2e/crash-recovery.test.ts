import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { loadConfig } from '@spoor/config';
import { createLogger } from '@spoor/service-log';
import { openAdapters } from '@spoor/runtime';
import { freePort, makeTempDir, requireEngine } from '@spoor/testkit';
import { modeEnv, MODES, type Mode } from '../support/engine-env.js';
import { registerProject, waitFor } from '../support/spoor-harness.js';

const HOST_MAIN = join(process.cwd(), 'services/host/dist/src/main.js');
const ORIGIN = 'https://crash.example';

/** The all-in-one process, as `npm start` runs it, in a child we can SIGKILL. */
class SpoorChild {
  private child: ChildProcess | null = null;
  constructor(
    readonly env: Record<string, string>,
    readonly url: string,
  ) {}

  async start(): Promise<void> {
    this.child = spawn(process.execPath, [HOST_MAIN], {
      env: { ...process.env, ...this.env },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    await waitFor(
      () =>
        fetch(`${this.url}/healthz`).then(
          (r) => r.ok,
          () => false,
        ),
      (up) => up,
      60_000,
      'spoor to start',
    );
  }

  kill(signal: NodeJS.Signals): Promise<void> {
    const child = this.child!;
    this.child = null;
    return new Promise((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill(signal);
    });
  }

  /** Waits until every consumer group has processed everything published (lag read after this call). */
  async drained(): Promise<void> {
    const since = Date.now();
    await waitFor(
      () =>
        fetch(`${this.url}/healthz`).then(
          (r) => r.json() as Promise<{ lag: Record<string, number>; lag_sampled_at: number }>,
        ),
      (h) => h.lag_sampled_at > since && Object.keys(h.lag).length >= 2 && Object.values(h.lag).every((n) => n === 0),
      90_000,
      'the pipeline to drain',
    );
  }
}

/** A client that posts events with ids, retries unacknowledged ones later, and remembers acks. */
class Sender {
  readonly acked = new Set<string>();
  readonly unacked = new Set<string>();
  private running = true;

  constructor(private readonly url: string) {}

  async loop(worker: number): Promise<void> {
    for (let i = 0; this.running; i++) await this.send(`w${worker}-${i}-${randomUUID().slice(0, 8)}`);
  }

  stop(): void {
    this.running = false;
  }

  async send(eventId: string): Promise<void> {
    const body = {
      project: 'crash/web',
      origin: ORIGIN,
      action: 'click',
      timestamp: Date.now(),
      session_id: `s-${eventId.split('-')[0]}`,
      event_id: eventId,
      payload: { eventId },
    };
    try {
      const res = await fetch(`${this.url}/v1/event`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      await res.text();
      if (res.status === 200) {
        this.acked.add(eventId);
        this.unacked.delete(eventId);
        return;
      }
    } catch {
      /* the process is gone: not acknowledged */
    }
    this.unacked.add(eventId);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Posts under load, SIGKILLs mid-stream, restarts, lets clients retry, and reads the store. */
async function crashScenario(mode: Mode, ctx: Mocha.Context, extraEnv: Record<string, string>, retryUnacked: boolean) {
  const dataDir = await makeTempDir('crash');
  const env = await modeEnv(mode, dataDir);
  requireEngine(ctx, env ? 'ok' : null, `engines for ${mode} mode`);
  const port = await freePort();
  const fullEnv = {
    ...env!,
    SPOOR_PORT: String(port),
    SPOOR_LOG_LEVEL: 'error',
    SPOOR_LAG_SAMPLE_MS: '100',
    ...extraEnv,
  };
  const config = loadConfig(fullEnv);
  const logger = createLogger('crash-test', 'error');
  // Register the project before the process starts: DuckDB admits one process at a time.
  let adapters = await openAdapters(config, logger);
  const project = await registerProject(adapters.store, ORIGIN, 'crash/web');
  await adapters.close();

  const spoor = new SpoorChild(fullEnv, `http://127.0.0.1:${port}`);
  await spoor.start();
  const sender = new Sender(spoor.url);
  const loops = Array.from({ length: 16 }, (_, w) => sender.loop(w));
  await waitFor(
    async () => sender.acked.size,
    (n) => n >= 300,
    30_000,
    'acknowledged events',
  );
  await spoor.kill('SIGKILL');
  sender.stop();
  await Promise.all(loops);
  const ackedBeforeCrash = sender.acked.size;

  await spoor.start();
  if (retryUnacked) for (const id of [...sender.unacked]) await sender.send(id);
  await spoor.drained();
  await spoor.kill('SIGTERM');

  adapters = await openAdapters(config, logger);
  try {
    const stored = await adapters.store.events.listRaw(project.project_id, { limit: 1_000_000 });
    const sessions = await adapters.store.sessions.list(project.project_id, { limit: 1000 });
    return {
      ackedBeforeCrash,
      acked: sender.acked,
      storedIds: stored.map((e) => e.event_id),
      enrichedCount: await adapters.store.events.countEnriched(project.project_id),
      sessionEventTotal: sessions.reduce((n, s) => n + s.event_count, 0),
    };
  } finally {
    await adapters.close();
  }
}

for (const mode of MODES) {
  describe(`Crash recovery: ${mode}`, function () {
    this.timeout(240_000);

    it('stores every acknowledged event exactly once after a SIGKILL', async function () {
      const r = await crashScenario(mode, this, {}, true);
      expect(r.ackedBeforeCrash).to.be.greaterThan(0);
      const stored = new Set(r.storedIds);
      const missing = [...r.acked].filter((id) => !stored.has(id));
      expect(missing, `${missing.length} acknowledged events lost`).to.deep.equal([]);
      expect(r.storedIds.length, 'duplicates among stored events').to.equal(stored.size);
      expect(r.enrichedCount).to.equal(stored.size);
      expect(r.sessionEventTotal, 'session summaries count each event once').to.equal(stored.size);
    });
  });
}

describe('Crash recovery: the check catches a server that acknowledges before writing', function () {
  this.timeout(240_000);

  it('finds acknowledged events missing', async function () {
    const r = await crashScenario('embedded', this, { SPOOR_UNSAFE_ACK_BEFORE_WRITE: 'true' }, false);
    const stored = new Set(r.storedIds);
    const missing = [...r.acked].filter((id) => !stored.has(id));
    expect(missing.length, 'an early-acknowledging server must lose events on SIGKILL').to.be.greaterThan(0);
  });
});
