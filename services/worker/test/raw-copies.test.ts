import { expect } from 'chai';
import { join } from 'node:path';
import type { JobContext } from '@spoor/jobs';
import { MemoryKv } from '@spoor/kv';
import { createLogger } from '@spoor/service-log';
import type { JobKind, JobRecord } from '@spoor/schemas';
import { openStore, type Store } from '@spoor/store';
import { makeTempDir } from '@spoor/testkit';
import { accountDeletionJob } from '../src/account-deletion-job.js';
import { expireProjectData } from '../src/data-retention.js';
import { erasureJob } from '../src/erasure-job.js';
import { projectDeletionJob } from '../src/project-deletion-job.js';

const HOUR = 3_600_000;
const NOW = Date.UTC(2026, 0, 10, 12);
// SPOOR_BUS_RETENTION_HOURS=6: segments close hourly (a quarter of it, an hour at most), and the
// deleters run within 5 minutes.
const GONE_BY = NOW + 6 * HOUR + HOUR + 5 * 60_000;

const job = (kind: JobKind, request: Record<string, unknown> = {}): JobRecord => ({
  job_id: `job-${kind}`,
  account_id: 'acct',
  project_id: 'p-raw',
  kind,
  status: 'running',
  request,
  created_at: NOW,
  started_at: NOW,
  finished_at: null,
  progress: null,
  result: null,
  error: null,
  attempts: 1,
  worker: 'w',
  updated_at: NOW,
});

// Issue 43, target 1: the store's rows go at once, the raw events they came from stay on the bus
// until its retention deletes them; each job's result says until when.
describe('raw_copies_gone_by', function () {
  this.timeout(30_000);
  let store: Store;
  const kv = new MemoryKv();
  const deps = () => ({ store, kv, clock: () => NOW, busRetentionMs: 6 * HOUR });
  const ctx: JobContext = {
    progress: async () => {},
    heartbeat: async () => {},
    signal: new AbortController().signal,
    logger: createLogger('test', 'error', () => {}),
  };

  before(async () => {
    store = await openStore({ kind: 'duckdb', path: join(await makeTempDir('raw-copies'), 'spoor.duckdb') });
    await store.migrate();
    await store.projects.create({
      project_id: 'p-raw',
      project: 'raw/web',
      origin: 'https://raw.example',
      account_id: 'acct',
      verified: false,
      verification_token: 't',
      created_at: NOW - 10 * 86_400_000,
      retention_days: 1,
    });
  });
  after(async () => store?.close());

  it('an erasure job answers when the raw copies are gone from the bus', async () => {
    const handler = erasureJob({ ...deps(), ip: { mode: 'full', ipSalt: null, dataDir: '.' } });
    const result = (await handler(job('erasure', { session_id: 'nobody' }), ctx)) as Record<string, unknown>;
    expect(result).to.include({ raw_copies_gone_by: GONE_BY });
  });

  it('a retention pass logs it', async () => {
    const lines: string[] = [];
    const logger = createLogger('test', 'info', (l) => void lines.push(l));
    await expireProjectData({ ...deps(), instance: 'w1', logger });
    const pass = lines.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l['msg'] === 'retention pass');
    expect(pass).to.include({ project_id: 'p-raw', raw_copies_gone_by: new Date(GONE_BY).toISOString() });
  });

  it('a project deletion job and an account deletion job answer it', async () => {
    const project = (await projectDeletionJob(deps())(job('project_deletion'), ctx)) as Record<string, unknown>;
    expect(project).to.include({ deleted: true, raw_copies_gone_by: GONE_BY });
    const account = (await accountDeletionJob(deps())(job('account_deletion'), ctx)) as Record<string, unknown>;
    expect(account).to.include({ deleted: true, raw_copies_gone_by: GONE_BY });
  });
});
