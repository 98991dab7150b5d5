// Numbers and instants as people read them in a digest. English month abbreviations are our
// own table: ICU's en-GB short September changed from "Sep" to "Sept" (ICU 72), which would
// make subjects differ between Node builds.

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const countFormat = new Intl.NumberFormat('en-GB', { maximumFractionDigits: 0 });
const percentFormat = new Intl.NumberFormat('en-GB', { style: 'percent', maximumFractionDigits: 1 });
const dateFormats = new Map<string, Intl.DateTimeFormat>();

/** Whether `timeZone` is an IANA zone name (or "UTC") this runtime knows. */
export function isValidTimeZone(timeZone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone });
    return true;
  } catch {
    return false;
  }
}

function dateFormat(timeZone: string): Intl.DateTimeFormat {
  let format = dateFormats.get(timeZone);
  if (!format) {
    // Throws RangeError for an unknown zone: a configuration error the caller should see.
    format = new Intl.DateTimeFormat('en-GB', {
      timeZone,
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    });
    dateFormats.set(timeZone, format);
  }
  return format;
}

/** "21 Nov 2026 00:00" in the given zone. */
export function formatInstant(epochMs: number, timeZone: string): string {
  const parts = dateFormat(timeZone).formatToParts(new Date(epochMs));
  const part = (type: Intl.DateTimeFormatPartTypes): string => parts.find((p) => p.type === type)?.value ?? '';
  return `${Number(part('day'))} ${MONTHS[Number(part('month')) - 1]} ${part('year')} ${part('hour')}:${part('minute')}`;
}

/** "21 Nov 2026 00:00 – 22 Nov 2026 00:00 UTC". */
export function formatWindow(startMs: number, endMs: number, timeZone: string): string {
  return `${formatInstant(startMs, timeZone)} – ${formatInstant(endMs, timeZone)} ${timeZone}`;
}

/** "12,345". */
export function formatCount(value: number): string {
  return Number.isFinite(value) ? countFormat.format(value) : 'n/a';
}

/** A share from 0 to 1 as "42.4%". */
export function formatPercent(share: number): string {
  return Number.isFinite(share) ? percentFormat.format(share) : 'n/a';
}

/** "850 ms", "5.4 s", "42 s", "1 min 5 s", "2 h 30 min", "3 d 4 h": two units at most. */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return 'n/a';
  if (Math.round(ms) < 1000) return `${Math.round(ms)} ms`;
  if (Math.round(ms / 100) < 100) return `${Math.round(ms / 100) / 10} s`;
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${seconds} s`;
  if (seconds < 3600) return twoUnits(Math.floor(seconds / 60), 'min', seconds % 60, 's');
  if (seconds < 86_400) return twoUnits(Math.floor(seconds / 3600), 'h', Math.floor(seconds / 60) % 60, 'min');
  return twoUnits(Math.floor(seconds / 86_400), 'd', Math.floor(seconds / 3600) % 24, 'h');
}

function twoUnits(major: number, majorUnit: string, minor: number, minorUnit: string): string {
  return minor === 0 ? `${major} ${majorUnit}` : `${major} ${majorUnit} ${minor} ${minorUnit}`;
}
