import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { loadConfig } from '@spoor/config';
import { createLogger } from '@spoor/service-log';
import { openAdapters, type Adapters } from '@spoor/runtime';
import { RECORD_KINDS, type JobRecord, type ScheduleData, type SessionState } from '@spoor/schemas';
import { freePort, makeTempDir, requireEngine } from '@spoor/testkit';
import { ApiClient, signUp } from '../support/api-client.js';
import { modeEnv, type Mode } from '../support/engine-env.js';
import { waitFor } from '../support/spoor-harness.js';

const HOST_MAIN = join(process.cwd(), 'services/host/dist/src/main.js');
const ORIGIN = 'http://localhost:5000';
const PROJECT = 'jobs/web';
const SCOPE = { origin: ORIGIN, project: PROJECT };

/** One Spoor process (some or all services), as `npm start` runs it, in a child we can SIGKILL. */
class Child {
  private proc: ChildProcess | null = null;
  constructor(readonly env: Record<string, string>) {}

  get pid(): number | undefined {
    return this.proc?.pid;
  }

  async start(healthUrl: string | null): Promise<void> {
    this.proc = spawn(process.execPath, [HOST_MAIN], {
      env: { ...process.env, ...this.env },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    // The server listens before its services have started: wait for the gateway's routes.
    if (healthUrl)
      await waitFor(
        () =>
          fetch(`${healthUrl}/openapi.json`).then(
            (r) => r.ok,
            () => false,
          ),
        (up) => up,
        60_000,
        'spoor to start',
      );
  }

  stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    const proc = this.proc;
    this.proc = null;
    return new Promise((resolve) => {
      if (!proc || proc.exitCode !== null) return resolve();
      proc.once('exit', () => resolve());
      proc.kill(signal);
    });
  }
}

function session(projectId: string, i: number): SessionState {
  const at = Date.UTC(2026, 10, 1) + i;
  return {
    session_id: `w-${String(i).padStart(6, '0')}`,
    project_id: projectId,
    first_event_at: at,
    last_event_at: at,
    duration_ms: 0,
    event_count: i % 5,
    actions: {},
    entry_url: null,
    exit_url: null,
    page_count: 0,
    referrer: null,
    utm: { source: null, medium: null, campaign: null, term: null, content: null },
    browser: { name: null, version: null },
    os: { name: null, version: null },
    device: { type: null, vendor: null, model: null },
    geo: { country: null, region: null, city: null, latitude: null, longitude: null },
    attributes: {},
    tags: [],
    classification: null,
    updated_at: at,
    seen: [],
  };
}

/**
 * Jobs across processes (DESIGN.md, Jobs): each command is at least once on the bus and runs
 * once in effect; a job whose worker is SIGKILLed finishes on another worker (Kafka) or on
 * the restarted process (embedded).
 */
for (const mode of ['kafka', 'embedded'] as Mode[]) {
  describe(`Jobs across worker processes: ${mode}`, function () {
    this.timeout(300_000);
    let env: Record<string, string>;
    let url: string;
    let base: Child;
    const workers: Child[] = [];
    let api: ApiClient;
    let adapters: Adapters | null = null;

    /** The job as stored, worker id included (the API does not show it). */
    const stored = async (jobId: string): Promise<JobRecord | null> => {
      if (adapters) return adapters.store.jobs.get(jobId);
      return null;
    };

    before(async function () {
      const e = await modeEnv(mode, await makeTempDir('spoor-jobs'));
      requireEngine(this, e ? 'ok' : null, `engines for ${mode} mode`);
      const port = await freePort();
      url = `http://127.0.0.1:${port}`;
      env = { ...e!, SPOOR_PORT: String(port), SPOOR_JOB_LEASE_MS: '3000', SPOOR_WORKER_TICK_MS: '100' };
      if (mode === 'kafka') {
        base = new Child({ ...env, SPOOR_SERVICES: 'ingest,gateway,enricher,sessionizer,classifier' });
        await base.start(url);
        for (let i = 0; i < 2; i++) {
          const w = new Child({ ...env, SPOOR_SERVICES: 'worker', SPOOR_PORT: '0' });
          await w.start(null);
          workers.push(w);
        }
        adapters = await openAdapters(loadConfig({ ...env, SPOOR_SERVICES: 'gateway' }), createLogger('test', 'error'));
      } else {
        base = new Child(env);
        await base.start(url);
      }
      api = await signUp(url);
      expect((await api.post('/v1/users/projects', SCOPE)).status).to.equal(200);
      expect(
        (
          await api.post('/v1/rules', {
            ...SCOPE,
            rule_id: 'busy',
            logic: { '>=': [{ var: 'event_count' }, 3] },
            tags: ['busy'],
          })
        ).status,
      ).to.equal(200);
    });

    after(async () => {
      await Promise.all([...workers.map((w) => w.stop()), base?.stop()]);
      await adapters?.close();
    });

    /** Sessions written straight into the store (the embedded store belongs to the child: through its own adapters there). */
    async function seed(count: number): Promise<void> {
      if (mode === 'embedded') {
        // DuckDB allows one writer process: stop the child, write, start it again.
        await base.stop();
        const own = await openAdapters(
          loadConfig({ ...env, SPOOR_SERVICES: 'gateway' }),
          createLogger('test', 'error'),
        );
        const p = (await own.store.projects.find(ORIGIN, PROJECT))!;
        for (let i = 0; i < count; i += 5000)
          await own.store.sessions.upsert(
            Array.from({ length: Math.min(5000, count - i) }, (_, k) => session(p.project_id, i + k)),
          );
        await own.close();
        await base.start(url);
        return;
      }
      const p = (await adapters!.store.projects.find(ORIGIN, PROJECT))!;
      for (let i = 0; i < count; i += 5000)
        await adapters!.store.sessions.upsert(
          Array.from({ length: Math.min(5000, count - i) }, (_, k) => session(p.project_id, i + k)),
        );
    }

    if (mode === 'kafka') {
      it('shares commands between two workers and runs each job once', async () => {
        await seed(200);
        const ids: string[] = [];
        const jobs: JobRecord[] = [];
        const ran = new Set<string | null>();
        // The second worker may still be joining the group when the first commands go out (the
        // first then holds every partition): more rounds, at most six of eight, until both ran some.
        for (let round = 0; round < 6 && ran.size < 2; round++) {
          const batch: string[] = [];
          for (let i = 0; i < 8; i++) {
            const res = await api.post('/v1/trigger/backfill', SCOPE);
            expect(res.status, res.text).to.equal(200);
            batch.push(res.body.job_id);
          }
          for (const id of batch) {
            await waitFor(
              () => api.get(`/v1/jobs/${id}`),
              (r) => r.body.status === 'succeeded' || r.body.status === 'failed',
              120_000,
              `job ${id}`,
            );
            const job = (await stored(id))!;
            jobs.push(job);
            ran.add(job.worker);
          }
          ids.push(...batch);
        }
        expect(jobs.map((j) => j.status)).to.deep.equal(ids.map(() => 'succeeded'));
        expect(jobs.map((j) => j.attempts)).to.deep.equal(ids.map(() => 1));
        expect(ran.size, `workers that ran jobs: ${[...ran].join(', ')}`).to.equal(2);
        expect(jobs.every((j) => (j.result as { sessions: number }).sessions >= 200)).to.equal(true);
      });

      it('makes each scheduled run once with two workers ticking, a missed stretch once', async () => {
        const made = await api.post('/v1/schedules', { ...SCOPE, kind: 'transitions', interval_ms: 60_000 });
        expect(made.status, made.text).to.equal(200);
        const p = (await adapters!.store.projects.find(ORIGIN, PROJECT))!;
        const id = made.body.schedule_id as string;
        const scheduledJobs = async () =>
          (await api.get('/v1/jobs', { limit: 100 })).body.jobs.filter((j: any) => j.request.schedule_id === id);
        for (const [round, missedBy] of [
          [1, 150_000],
          [2, 1_000],
        ] as const) {
          const rec = (await adapters!.store.records.get<ScheduleData>(RECORD_KINDS.schedule, p.project_id, id))!;
          const due = Date.now() - missedBy;
          await adapters!.store.records.put([
            { ...rec, data: { ...rec.data, next_run_at: due }, updated_at: rec.updated_at + 1 },
          ]);
          await waitFor(scheduledJobs, (jobs) => jobs.length >= round, 20_000, `scheduled run ${round}`);
          await new Promise((r) => setTimeout(r, 1500)); // both workers ticked many times meanwhile
          const jobs = await scheduledJobs();
          expect(jobs, `jobs after round ${round}`).to.have.length(round);
          const latest = jobs[0];
          expect(latest.request.window_end).to.equal(due + Math.floor(missedBy / 60_000) * 60_000);
          const done = await waitFor(
            () => api.get(`/v1/jobs/${latest.job_id}`),
            (r) => ['succeeded', 'failed'].includes(r.body.status),
            30_000,
            'the scheduled job',
          );
          expect(done.body.status, done.body.error).to.equal('succeeded');
        }
      });
    }

    it('finishes a job whose worker was SIGKILLed while running it', async () => {
      // Enough pages (500 sessions each) that the backfill is seen running and killed after its
      // first pages, long before its last (the expect below says so if it ever is not); the
      // restarted job pages through all of them again. (What takes the time here is the wait for
      // the lease and, on Kafka, for the group to drop the killed worker, not the sessions.)
      await seed(mode === 'kafka' ? 15_000 : 20_000);
      const queued = await api.post('/v1/trigger/backfill', SCOPE);
      expect(queued.status).to.equal(200);
      const jobId = queued.body.job_id as string;
      const running = await waitFor(
        () => api.get(`/v1/jobs/${jobId}`),
        (r) => (r.body.status === 'running' && (r.body.progress?.done ?? 0) > 0) || r.body.status === 'succeeded',
        120_000,
        'the backfill to run',
      );
      expect(running.body.status, 'the job finished before it could be killed; seed more sessions').to.equal('running');
      let victim: Child;
      let victimId: string | null = null;
      if (mode === 'kafka') {
        const record = (await stored(jobId))!;
        victimId = record.worker;
        const pid = Number(record.worker!.split(':').pop());
        victim = workers.find((w) => w.pid === pid)!;
        expect(victim, `worker ${record.worker} is one of ours`).to.not.equal(undefined);
      } else {
        victim = base;
      }
      await victim.stop('SIGKILL');
      if (mode === 'embedded') await base.start(url);
      const done = await waitFor(
        () => api.get(`/v1/jobs/${jobId}`),
        (r) => r.body.status === 'succeeded' || r.body.status === 'failed',
        240_000,
        'the job to finish elsewhere',
      );
      expect(done.body.status, JSON.stringify(done.body)).to.equal('succeeded');
      expect(done.body.attempts).to.equal(2);
      expect(done.body.result.sessions).to.equal(done.body.progress.total);
      if (mode === 'kafka') expect((await stored(jobId))!.worker).to.not.equal(victimId);
      // Every seeded session ended classified: the tag of the busy rule is on 2 of every 5.
      const tagged = await api.get('/v1/tags/busy', {
        ...SCOPE,
        window_start: Date.UTC(2026, 10, 1),
        window_end: Date.UTC(2026, 10, 1) + 1000,
        limit: 1000,
      });
      expect(tagged.body.sessions).to.have.length(400);
    });
  });
}
