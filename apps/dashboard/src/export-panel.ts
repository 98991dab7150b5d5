import type { components } from '@spoor/client';
import { api, ApiError, ok, waitForJob } from './api-access.js';
import { field, h, replace, showInfo, statusLine } from './dom-builder.js';
import { formatBytes, formatCount, formatTime } from './display-format.js';
import type { Scope } from './project-scope.js';

type ExportRequest = components['schemas']['ExportRequest'];
type What = ExportRequest['what'];
type Format = ExportRequest['format'];

/** The job's result once it has succeeded (docs/data.md, Export). */
interface ExportResult {
  rows: number;
  bytes: number;
  file_name: string;
}

export interface ExportWindow {
  from?: number | undefined;
  to?: number | undefined;
}

const FORMATS: [Format, string][] = [
  ['csv', 'CSV'],
  ['ndjson', 'NDJSON (one JSON object a line)'],
  ['parquet', 'Parquet'],
];
const WHATS: [What, button: string, rows: string][] = [
  ['sessions', 'Export sessions', 'sessions'],
  ['events', 'Export events', 'events'],
  ['enriched_events', 'Export enriched events', 'enriched events'],
];
// An export of a million events takes seconds (docs/data.md, "How fast"); a queue ahead of it more.
const EXPORT_TIMEOUT_MS = 10 * 60_000;

/**
 * Hands the file to the browser. The download needs the bearer token, which a plain link would
 * not send, so the file is fetched as a blob and saved through an object URL.
 */
function saveFile(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const link = h('a', { href: url, download: name, hidden: true });
  document.body.append(link);
  link.click();
  link.remove();
  // Revoked later: the click starts the download asynchronously and still reads the URL.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/** The words for a refused export: the DNS gate is the one a user can act on. */
function refusal(err: unknown, scope: Scope): HTMLElement | string {
  if (err instanceof ApiError && err.status === 403) {
    return h(
      'span',
      {},
      `The domain of ${scope.origin} is not verified, so its events cannot be exported yet (sessions can). Create the DNS record shown on `,
      h('a', { href: '/projects' }, 'Projects'),
      ' and press Verify.',
    );
  }
  return (err as Error).message;
}

async function runExport(scope: Scope, what: What, format: Format, window: ExportWindow): Promise<ExportResult> {
  const range = {
    ...(window.from ? { window_start: window.from } : {}),
    ...(window.to ? { window_end: window.to } : {}),
  };
  const { job_id } = await ok(api().POST('/v1/exports', { body: { ...scope, what, format, ...range } }));
  const job = await waitForJob(job_id, 'The export', EXPORT_TIMEOUT_MS);
  const result = job.result as ExportResult;
  const file = await ok(
    api().GET('/v1/exports/{export_id}/file', { params: { path: { export_id: job_id } }, parseAs: 'blob' }),
  );
  saveFile(file as Blob, result.file_name);
  return result;
}

function windowWords(window: ExportWindow): string {
  if (!window.from && !window.to) return 'All of the project’s data, whatever its time.';
  return `From ${window.from ? formatTime(window.from) : 'the first'} to ${window.to ? formatTime(window.to) : 'now'} (the time filter above).`;
}

/**
 * Sessions and events of the project as a file, over the page's time window (sessions by their
 * last event, events by their time). The tag and classification filters do not apply: the
 * export API takes a window only.
 */
export function exportPanel(scope: Scope, window: ExportWindow): HTMLElement {
  const format = h(
    'select',
    { name: 'export_format' },
    FORMATS.map(([v, label]) => h('option', { value: v }, label)),
  );
  const status = statusLine();
  const buttons: HTMLButtonElement[] = WHATS.map(([what, label, rows]) =>
    h(
      'button',
      {
        type: 'button',
        class: what === 'sessions' ? '' : 'secondary',
        onclick: async () => {
          for (const b of buttons) b.disabled = true;
          showInfo(status, `Exporting ${rows}…`);
          try {
            const r = await runExport(scope, what, format.value as Format, window);
            showInfo(status, `Downloaded ${r.file_name}: ${formatCount(r.rows)} ${rows}, ${formatBytes(r.bytes)}.`);
          } catch (err) {
            status.className = 'status error';
            replace(status, refusal(err, scope));
          } finally {
            for (const b of buttons) b.disabled = false;
          }
        },
      },
      label,
    ),
  );
  return h(
    'section',
    { class: 'card export', 'aria-label': 'Export' },
    h('h2', {}, 'Export'),
    h('p', { class: 'muted' }, windowWords(window), ' Events need the domain verified; the file is kept for 24 hours.'),
    h('div', { class: 'toolbar' }, field('Format', format), buttons),
    status,
  );
}
