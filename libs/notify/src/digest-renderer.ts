import type { NotificationMessage, Overview, RankedCount } from '@spoor/schemas';
import { projectLabel, renderDocument, type Block } from './message-document.js';
import { formatCount, formatDuration, formatPercent, formatWindow } from './figure-format.js';
import { plainLine } from './text-escaping.js';

export interface DigestOptions {
  /** Link to the project's dashboard; left out unless absolute http(s). */
  dashboardUrl?: string;
  /** IANA zone the window is shown in; 'UTC' by default. An unknown zone throws RangeError. */
  timeZone?: string;
  /** The project's saved funnels over the digest's window (issue 18), in this order. */
  funnels?: DigestFunnel[];
}

/** One saved funnel's counts over the window: who reached each step. */
export interface DigestFunnel {
  name: string;
  steps: Array<{ name: string; entered: number }>;
}

type RankedListKey = { [K in keyof Overview]: Overview[K] extends RankedCount[] ? K : never }[keyof Overview];

const SECTIONS: ReadonlyArray<readonly [RankedListKey, string]> = [
  ['actions', 'Top actions'],
  ['pages', 'Top entry pages'],
  ['referrers', 'Top referrers'],
  ['utm_sources', 'Top UTM sources'],
  ['countries', 'Top countries'],
  ['browsers', 'Top browsers'],
  ['devices', 'Top devices'],
  ['tags', 'Top tags'],
];
const TOP = 5;
/** A user string longer than this (a 10 kB action name) would push the figures out of view. */
const NAME_MAX = 120;

/** The digest of one project over one window, for every channel kind. */
export function renderDigest(overview: Overview, opts: DigestOptions = {}): NotificationMessage {
  const where = projectLabel(overview.project, overview.origin);
  const window = formatWindow(overview.window_start, overview.window_end, opts.timeZone ?? 'UTC');
  const blocks: Block[] = [
    { kind: 'title', text: `Spoor digest: ${where}` },
    { kind: 'paragraph', text: window },
    ...headline(overview),
    ...rankedSections(overview),
    ...(opts.funnels ?? []).flatMap(funnelSection),
    ...(opts.dashboardUrl ? [{ kind: 'link', label: 'Open the dashboard', url: opts.dashboardUrl } as const] : []),
  ];
  return renderDocument({ subject: `Spoor digest: ${where}, ${window}`, blocks });
}

function headline(o: Overview): Block[] {
  if (o.sessions === 0) {
    const text =
      o.events === 0 ? 'No sessions in this window.' : `No sessions in this window (${formatCount(o.events)} events).`;
    return [{ kind: 'paragraph', text }];
  }
  return [
    {
      kind: 'figures',
      rows: [
        { label: 'Events', value: formatCount(o.events) },
        { label: 'Sessions', value: formatCount(o.sessions) },
        { label: 'Visitors', value: formatCount(o.visitors) },
        { label: 'Bounce rate', value: formatPercent(o.bounce_rate) },
        { label: 'Median session', value: formatDuration(o.duration_ms.p50) },
        { label: '90th percentile session', value: formatDuration(o.duration_ms.p90) },
      ],
    },
  ];
}

function rankedSections(o: Overview): Block[] {
  return SECTIONS.flatMap(([key, title]): Block[] => {
    const rows = [...o[key]]
      .sort((a, b) => b.count - a.count)
      .slice(0, TOP)
      .map((r) => ({ name: plainLine(r.name, NAME_MAX), count: r.count }));
    return rows.length === 0 ? [] : [{ kind: 'ranked', title, rows }];
  });
}

/** A funnel as figures: each step, who reached it and the share of the first step. */
function funnelSection(f: DigestFunnel): Block[] {
  const first = f.steps[0]?.entered ?? 0;
  return [
    { kind: 'paragraph', text: `Funnel: ${plainLine(f.name, NAME_MAX)}` },
    {
      kind: 'figures',
      rows: f.steps.map((s, i) => ({
        label: `${i + 1}. ${plainLine(s.name, NAME_MAX)}`,
        value:
          i === 0 || first === 0
            ? formatCount(s.entered)
            : `${formatCount(s.entered)} (${formatPercent(s.entered / first)})`,
      })),
    },
  ];
}
