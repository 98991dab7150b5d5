import type { Command } from 'commander';
import type { components, SpoorClient } from '@spoor/client';
import { unwrap } from '../api-result.js';
import { CliError, UsageError } from '../cli-errors.js';
import { act, commaList, intOption, type SessionFactory } from '../command-action.js';
import { fields } from '../cli-output.js';
import type { CliSession } from '../cli-session.js';
import { windowQuery, withWindow, type WindowOptions } from './window-options.js';

type Job = components['schemas']['Job'];
const KINDS = ['aggregation', 'notification', 'transitions', 'classification', 'backfill'] as const;
type Kind = (typeof KINDS)[number];

interface TriggerOptions extends WindowOptions {
  wait?: boolean;
  sessions?: string;
  channels?: string;
  kind?: 'digest' | 'alert';
  pollMs: number;
}

function progressLine(job: Job): string {
  const p = job.progress;
  if (!p) return job.status;
  return p.total
    ? `${job.status} ${p.done.toLocaleString('en')}/${p.total.toLocaleString('en')} (${Math.floor((p.done / p.total) * 100)}%)`
    : `${job.status} ${p.done.toLocaleString('en')}`;
}

/**
 * Follows a job until it ends: a line rewritten in place on a terminal, one line per change
 * otherwise (both on stderr; stdout gets the final job). A failed job is an error (exit 1).
 */
export async function followJob(s: CliSession, client: SpoorClient, jobId: string, pollMs: number): Promise<Job> {
  const live = !!s.streams.stderr.isTTY;
  let last = '';
  for (;;) {
    const job = unwrap(await client.GET('/v1/jobs/{job_id}', { params: { path: { job_id: jobId } } }));
    const line = `${job.kind} ${job.job_id}: ${progressLine(job)}`;
    if (line !== last) s.streams.stderr.write(live ? `\r\x1b[2K${line}` : `${line}\n`);
    last = line;
    if (job.status === 'succeeded' || job.status === 'failed') {
      if (live) s.streams.stderr.write('\n');
      return job;
    }
    await new Promise((r) => setTimeout(r, pollMs));
  }
}

function body(kind: Kind, scope: { origin: string; project: string }, o: TriggerOptions): Record<string, unknown> {
  const base = { ...scope, ...windowQuery(o) };
  if (kind === 'classification') {
    const ids = commaList(o.sessions);
    if (!ids?.length) throw new UsageError('classification needs --sessions <id,id,…>');
    return { ...base, session_ids: ids };
  }
  if (kind === 'notification')
    return { ...base, ...(o.kind ? { kind: o.kind } : {}), ...(o.channels ? { channels: commaList(o.channels) } : {}) };
  return base;
}

async function trigger(s: CliSession, kind: Kind, o: TriggerOptions): Promise<void> {
  const client = await s.client();
  const path = `/v1/trigger/${kind}` as const;
  const queued = unwrap(await client.POST(path, { body: body(kind, await s.scope(), o) as never }));
  if (!o.wait)
    return s.out.result(
      queued,
      () => `queued ${kind} job ${queued.job_id}; follow it with \`spoor jobs get ${queued.job_id}\``,
    );
  const job = await followJob(s, client, queued.job_id, o.pollMs);
  s.out.result(job, () =>
    s.out.record(job as unknown as Record<string, unknown>, [
      'job_id',
      'kind',
      'status',
      'started_at',
      'finished_at',
      'result',
      'error',
    ]),
  );
  if (job.status === 'failed') throw new CliError(`the ${kind} job failed: ${job.error ?? 'no reason given'}`);
}

export function registerTriggerCommands(program: Command, make: SessionFactory): void {
  const triggers = program
    .command('trigger')
    .description('start a job: aggregation, notification, transitions, classification or backfill');
  for (const kind of KINDS) {
    const c = withWindow(
      triggers.command(kind).description(`start a ${kind} job for the project (default window: the last 24 hours)`),
    )
      .option('--wait', 'follow the job with its progress until it ends; exit 1 if it failed')
      .option('--poll-ms <ms>', 'how often --wait asks', intOption('--poll-ms'), 500);
    if (kind === 'classification') c.option('--sessions <ids>', 'comma-separated session ids to reclassify (required)');
    if (kind === 'notification')
      c.option('--kind <kind>', 'digest (default) or alert').option(
        '--channels <ids>',
        'comma-separated channel ids (default: every channel of the project)',
      );
    c.action(
      act(make, async (s, o: TriggerOptions) => {
        if (o.kind && !['digest', 'alert'].includes(o.kind)) throw new UsageError('--kind is digest or alert');
        await trigger(s, kind, o);
      }),
    );
  }

  const jobs = program.command('jobs').description('jobs you started: one by id, or the most recent');
  jobs
    .command('get')
    .description('status, times, progress, result or error of a job')
    .argument('<job_id>')
    .option('--wait', 'follow it until it ends; exit 1 if it failed')
    .option('--poll-ms <ms>', 'how often --wait asks', intOption('--poll-ms'), 500)
    .action(
      act(make, async (s, id: string, o: { wait?: boolean; pollMs: number }) => {
        const client = await s.client();
        const job = o.wait
          ? await followJob(s, client, id, o.pollMs)
          : unwrap(await client.GET('/v1/jobs/{job_id}', { params: { path: { job_id: id } } }));
        s.out.result(job, () => s.out.record(job as unknown as Record<string, unknown>));
        if (o.wait && job.status === 'failed') throw new CliError(`the job failed: ${job.error ?? 'no reason given'}`);
      }),
    );
  jobs
    .command('list', { isDefault: true })
    .description('your most recent jobs, newest first')
    .option('--limit <n>', 'how many (1-100)', intOption('--limit'), 20)
    .action(
      act(make, async (s, o: { limit: number }) => {
        const data = unwrap(await (await s.client()).GET('/v1/jobs', { params: { query: { limit: o.limit } } }));
        s.out.result(data, () =>
          s.out.table(
            data.jobs,
            fields<Job>('job_id', 'kind', 'status', 'project', 'created_at', 'finished_at', 'error'),
          ),
        );
      }),
    );
}
