import type { Command } from 'commander';
import type { components } from '@spoor/client';
import { unwrap } from '../api-result.js';
import { act, intOption, type SessionFactory } from '../command-action.js';
import type { CliOutput } from '../cli-output.js';
import { windowQuery, withWindow, type WindowOptions } from './window-options.js';

type Health = components['schemas']['HealthReport'];

/** What an operator reads first: status and problems, then the figures. */
function describeHealth(out: CliOutput, h: Health): string {
  const services = h.services.map((s) => `${s.name} ${s.alive ? 'up' : 'DOWN'}`).join(', ');
  const lines = [
    `status:   ${h.status}${h.problems.length ? ` — ${h.problems.join('; ')}` : ''}`,
    `version:  ${h.version}, up ${Math.round(h.uptime_ms / 1000)} s, checked ${out.time(h.checked_at)}`,
    `services: ${services}`,
    `ingest:   ${h.ingest.accepted_total} accepted, ${h.ingest.rejected_total} rejected, ${h.ingest.publish_failures_total} publish failures, ${h.ingest.rate_per_s}/s`,
    `jobs:     ${h.jobs.started_total} started, ${h.jobs.succeeded_total} succeeded, ${h.jobs.failed_total} failed`,
    `storage:  ${h.storage.kind}, ${(h.storage.size_bytes / 1048576).toFixed(1)} MiB`,
  ];
  const lag = out.table(h.lag, [
    { header: 'topic', value: (l) => l.topic },
    { header: 'group', value: (l) => l.group },
    { header: 'lag', value: (l) => l.lag },
  ]);
  return `${lines.join('\n')}\n\n${lag}`;
}

export function registerStatusCommands(program: Command, make: SessionFactory): void {
  const status = program.command('status').description("the pipeline's health, now and over time");
  status
    .command('health', { isDefault: true })
    .description('current health: services, ingest rate, consumer lag, job failures, storage, problems')
    .action(
      act(make, async (s) => {
        const h = unwrap(await (await s.client()).GET('/v1/status/health'));
        s.out.result(h, () => describeHealth(s.out, h));
      }),
    );
  withWindow(
    status.command('history').description('recorded health snapshots (one a minute, kept 7 days), newest first'),
  )
    .option('--limit <n>', 'how many (1-1440)', intOption('--limit'), 60)
    .action(
      act(make, async (s, o: WindowOptions & { limit: number }) => {
        const data = unwrap(
          await (
            await s.client()
          ).GET('/v1/status/health/history', { params: { query: { ...windowQuery(o), limit: o.limit } } }),
        );
        s.out.result(data, () =>
          s.out.table(data.snapshots, [
            { header: 'checked_at', value: (h: Health) => h.checked_at },
            { header: 'status', value: (h: Health) => h.status },
            { header: 'accepted', value: (h: Health) => h.ingest.accepted_total },
            { header: 'rate_per_s', value: (h: Health) => h.ingest.rate_per_s },
            { header: 'max_lag', value: (h: Health) => Math.max(0, ...h.lag.map((l) => l.lag)) },
            { header: 'jobs_failed', value: (h: Health) => h.jobs.failed_total },
            { header: 'problems', value: (h: Health) => h.problems.join('; ') },
          ]),
        );
      }),
    );
}
