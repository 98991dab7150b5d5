import type { NotificationMessage } from '@spoor/schemas';
import { projectLabel, renderDocument, type Block } from './message-document.js';
import { formatCount, formatInstant } from './figure-format.js';
import { plainLine } from './text-escaping.js';

export interface AlertInput {
  /** What happened: "More than 10 sessions tagged checkout in the last hour: 14". */
  title: string;
  /** Details, one per line (a rule's matches, the sessions that crossed a threshold). */
  lines: string[];
  origin: string;
  project: string;
  /** When it was detected, epoch ms. */
  at: number;
  dashboardUrl?: string;
  /** IANA zone `at` is shown in; 'UTC' by default. */
  timeZone?: string;
}

const TITLE_MAX = 200;
const LINE_MAX = 300;
/** A rule matching thousands of sessions should say so, not list them all. */
const LINES_MAX = 20;

/** A threshold crossing or a rule match, for every channel kind. */
export function renderAlert(alert: AlertInput): NotificationMessage {
  const timeZone = alert.timeZone ?? 'UTC';
  const title = plainLine(alert.title, TITLE_MAX);
  const where = projectLabel(alert.project, alert.origin);
  const blocks: Block[] = [
    { kind: 'title', text: `Spoor alert: ${title}` },
    {
      kind: 'figures',
      rows: [
        { label: 'Project', value: where },
        { label: 'At', value: `${formatInstant(alert.at, timeZone)} ${timeZone}` },
      ],
    },
    ...detailLines(alert.lines),
    ...(alert.dashboardUrl ? [{ kind: 'link', label: 'Open the dashboard', url: alert.dashboardUrl } as const] : []),
  ];
  return renderDocument({ subject: `Spoor alert: ${title} — ${where}`, blocks });
}

function detailLines(lines: string[]): Block[] {
  if (lines.length === 0) return [];
  const items = lines.slice(0, LINES_MAX).map((l) => plainLine(l, LINE_MAX));
  if (lines.length > LINES_MAX) items.push(`… and ${formatCount(lines.length - LINES_MAX)} more`);
  return [{ kind: 'bullets', items }];
}
