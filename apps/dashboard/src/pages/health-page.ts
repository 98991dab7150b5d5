import type { components } from '@spoor/client';
import { api, ApiError, ok } from '../api-access.js';
import { h, replace } from '../dom-builder.js';
import { formatBytes, formatCount, formatDuration, formatTime } from '../display-format.js';
import type { Page } from '../page-context.js';
import { figures } from '../ranked-list.js';
import { color, timeSeriesChart } from '../time-series-chart.js';

type Report = components['schemas']['HealthReport'];

/**
 * The report lists an instance for an hour after its last heartbeat, marked `alive: false`;
 * counting those as instances said "2 instances" of a service that had one (issue 20).
 */
function instanceCount(instances: Report['services'][number]['instances']): string {
  const live = instances.filter((i) => i.alive).length;
  const dead = instances.length - live;
  return `${live} instance${live === 1 ? '' : 's'}${dead ? `, ${dead} down` : ''}`;
}

function current(r: Report): HTMLElement {
  return h(
    'div',
    {},
    h('p', { class: `health-status ${r.status}` }, `Status: ${r.status}`),
    r.problems.length
      ? h(
          'ul',
          { class: 'status error', 'aria-label': 'Problems' },
          r.problems.map((p) => h('li', {}, p)),
        )
      : h('p', { class: 'muted' }, 'No problems.'),
    figures([
      ['Version', r.version],
      ['Uptime', formatDuration(r.uptime_ms)],
      ['Events accepted', formatCount(r.ingest.accepted_total)],
      ['Rejected', formatCount(r.ingest.rejected_total)],
      ['Ingest rate', `${r.ingest.rate_per_s.toFixed(1)}/s`],
      ['Jobs succeeded', formatCount(r.jobs.succeeded_total)],
      ['Jobs failed', formatCount(r.jobs.failed_total)],
      ['Storage', `${r.storage.kind}, ${formatBytes(r.storage.size_bytes)}`],
    ]),
    h('h2', {}, 'Services'),
    h(
      'ul',
      { class: 'action-list' },
      r.services.map((s) =>
        h(
          'li',
          {},
          h('strong', {}, s.name),
          h('span', { class: s.alive ? 'chip ok' : 'chip warn' }, s.alive ? 'alive' : 'down'),
          h('span', { class: 'muted' }, instanceCount(s.instances)),
        ),
      ),
    ),
    h('h2', {}, 'Consumer lag'),
    r.lag.length
      ? h(
          'ul',
          { class: 'action-list' },
          r.lag.map((l) =>
            h(
              'li',
              {},
              h('span', { class: 'mono' }, `${l.topic} (${l.group})`),
              h('strong', {}, l.lag < 0 ? 'unknown' : formatCount(l.lag)),
            ),
          ),
        )
      : h('p', { class: 'muted' }, 'No consumer group.'),
  );
}

function history(snapshots: Report[]): HTMLElement {
  if (snapshots.length === 0) return h('p', { class: 'empty' }, 'No snapshot yet: the worker keeps one a minute.');
  const oldest = [...snapshots].reverse();
  const times = oldest.map((s) => s.checked_at);
  return h(
    'div',
    { class: 'charts' },
    timeSeriesChart('Ingest rate (events/s)', times, [
      { label: 'events/s', values: oldest.map((s) => s.ingest.rate_per_s), color: color(0) },
    ]),
    timeSeriesChart('Consumer lag (messages)', times, [
      { label: 'lag', values: oldest.map((s) => s.lag.reduce((a, l) => a + Math.max(0, l.lag), 0)), color: color(1) },
    ]),
    timeSeriesChart('Storage (MiB)', times, [
      { label: 'MiB', values: oldest.map((s) => s.storage.size_bytes / 2 ** 20), color: color(2) },
    ]),
  );
}

/** Health shows every account's traffic, so only operators see it (DESIGN.md, Operators). */
function operatorsOnly(detail: string): HTMLElement[] {
  return [
    h('h1', { tabindex: -1 }, 'Health'),
    h(
      'p',
      { class: 'status', role: 'status' },
      'Health covers the whole server, every account’s traffic included, so only its operators may see it. An operator is named in the server’s SPOOR_ADMIN_EMAILS setting.',
    ),
    h('p', { class: 'muted' }, `The server said: ${detail}`),
  ];
}

/** The pipeline's health now, and its history over the last hours (a snapshot a minute). */
export const healthPage: Page = async (ctx) => {
  let answers;
  try {
    answers = await Promise.all([
      ok(api().GET('/v1/status/health')),
      ok(api().GET('/v1/status/health/history', { params: { query: { limit: 360 } } })),
    ]);
  } catch (err) {
    if (err instanceof ApiError && err.status === 403) return replace(ctx.main, ...operatorsOnly(err.message));
    throw err;
  }
  const [report, { snapshots }] = answers;
  replace(
    ctx.main,
    h('h1', { tabindex: -1 }, 'Health'),
    h('p', { class: 'muted' }, `Checked ${formatTime(report.checked_at)}.`),
    current(report),
    h('h2', {}, 'History'),
    history(snapshots),
  );
};
