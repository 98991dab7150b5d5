/** How numbers and times read on every page: local time, short units. */
const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
const integer = new Intl.NumberFormat();

export const formatTime = (ms: number | null | undefined): string => (ms ? dateTime.format(new Date(ms)) : '—');
export const formatCount = (n: number): string => integer.format(n);
export const formatPercent = (share: number): string => `${Math.round(share * 1000) / 10}%`;

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${s % 60} s`;
  return `${Math.floor(m / 60)} h ${m % 60} min`;
}

/** "5 min ago", for last-seen times. */
export function formatAgo(ms: number, now = Date.now()): string {
  const d = Math.max(0, now - ms);
  if (d < 60_000) return 'just now';
  return `${formatDuration(d).split(' ').slice(0, 2).join(' ')} ago`;
}

export const formatBytes = (n: number): string =>
  n < 1024
    ? `${n} B`
    : n < 1 << 20
      ? `${(n / 1024).toFixed(1)} KiB`
      : n < 1 << 30
        ? `${(n / (1 << 20)).toFixed(1)} MiB`
        : `${(n / (1 << 30)).toFixed(2)} GiB`;

/** The value of an <input type="datetime-local"> as epoch ms, or undefined when empty. */
export function inputTime(value: string): number | undefined {
  const ms = value ? new Date(value).getTime() : NaN;
  return Number.isFinite(ms) ? ms : undefined;
}

/** Epoch ms as the local value of a datetime-local input. */
export function toInputTime(ms: number): string {
  const d = new Date(ms - new Date(ms).getTimezoneOffset() * 60_000);
  return d.toISOString().slice(0, 16);
}
