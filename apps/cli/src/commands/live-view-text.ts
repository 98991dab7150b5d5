// The live view as people read it on a terminal: the count, the pages, the latest events.
import type { LiveSnapshot } from '@spoor/client';
import type { CliOutput } from '../cli-output.js';

export function describeLive(out: CliOutput, snap: LiveSnapshot): string {
  const head = `${snap.origin} ${snap.project} — ${snap.visitors} visitor${snap.visitors === 1 ? '' : 's'} in the last ${Math.round(snap.window_ms / 60_000)} minutes (at ${out.time(snap.at)})`;
  const pages = out.table(snap.pages, [
    { header: 'page', value: (p) => p.path },
    { header: 'visitors', value: (p) => p.visitors },
  ]);
  const events = out.table(snap.events, [
    { header: 'timestamp', value: (e) => e.timestamp },
    { header: 'action', value: (e) => e.action },
    { header: 'path', value: (e) => e.path },
    { header: 'session', value: (e) => e.session_id },
    { header: 'browser', value: (e) => e.browser },
    { header: 'country', value: (e) => e.country },
  ]);
  return `${head}\n\nPages now\n${pages}\n\nLatest events\n${events}`;
}
