import type { NotificationMessage, RankedCount } from '@spoor/schemas';
import { escapeHtml, escapeMarkdown, markdownUrl, plainLine, safeHttpUrl } from './text-escaping.js';
import { formatCount } from './figure-format.js';

// A message is first built as a list of blocks holding plain strings only, then written once
// per format. No block carries markup, so no renderer can mix trusted markup with user text:
// each one escapes every string it writes.

export type Block =
  | { kind: 'title'; text: string }
  | { kind: 'paragraph'; text: string }
  | { kind: 'figures'; rows: Array<{ label: string; value: string }> }
  | { kind: 'ranked'; title: string; rows: RankedCount[] }
  | { kind: 'bullets'; items: string[] }
  | { kind: 'link'; label: string; url: string };

export interface MessageDocument {
  subject: string;
  blocks: Block[];
}

const SUBJECT_MAX = 250;
const PROJECT_MAX = 120;

/** "web (https://acme.example)", each part clamped: how digests and alerts name a project. */
export function projectLabel(project: string, origin: string): string {
  return `${plainLine(project, PROJECT_MAX)} (${plainLine(origin, PROJECT_MAX)})`;
}

export function renderDocument(doc: MessageDocument): NotificationMessage {
  const blocks = doc.blocks.filter((b) => b.kind !== 'link' || safeHttpUrl(b.url) !== null);
  const subject = plainLine(doc.subject, SUBJECT_MAX);
  return { subject, text: renderText(blocks), markdown: renderMarkdown(blocks), html: renderHtml(subject, blocks) };
}

/** What a ranked row's name shows: an empty name (a direct visit, no UTM source) says so. */
const rowName = (row: RankedCount): string => (row.name === '' ? '(none)' : row.name);

function renderText(blocks: Block[]): string {
  const t = (s: string): string => plainLine(s);
  const write = (b: Block): string => {
    switch (b.kind) {
      case 'title':
      case 'paragraph':
        return t(b.text);
      case 'figures':
        return b.rows.map((r) => `${t(r.label)}: ${t(r.value)}`).join('\n');
      case 'ranked':
        return [t(b.title), ...b.rows.map((r, i) => `  ${i + 1}. ${t(rowName(r))} — ${formatCount(r.count)}`)].join(
          '\n',
        );
      case 'bullets':
        return b.items.map((item) => `- ${t(item)}`).join('\n');
      case 'link':
        return `${t(b.label)}: ${safeHttpUrl(b.url)}`;
    }
  };
  return `${blocks.map(write).join('\n\n')}\n`;
}

function renderMarkdown(blocks: Block[]): string {
  const m = (s: string): string => escapeMarkdown(plainLine(s));
  const write = (b: Block): string => {
    switch (b.kind) {
      case 'title':
        return `**${m(b.text)}**`;
      case 'paragraph':
        return m(b.text);
      case 'figures':
        return b.rows.map((r) => `- **${m(r.label)}:** ${m(r.value)}`).join('\n');
      case 'ranked':
        return [
          `**${m(b.title)}**`,
          ...b.rows.map((r, i) => `${i + 1}. ${m(rowName(r))} — ${formatCount(r.count)}`),
        ].join('\n');
      case 'bullets':
        return b.items.map((item) => `- ${m(item)}`).join('\n');
      case 'link':
        return `[${m(b.label)}](${markdownUrl(safeHttpUrl(b.url) ?? '')})`;
    }
  };
  return blocks.map(write).join('\n\n');
}

// Inline styles only: most mail clients drop <style> blocks.
const FONT = 'font-family:-apple-system,Segoe UI,Helvetica,Arial,sans-serif;color:#1f2328';

function renderHtml(subject: string, blocks: Block[]): string {
  const h = (s: string): string => escapeHtml(plainLine(s));
  const write = (b: Block): string => {
    switch (b.kind) {
      case 'title':
        return `<h1 style="font-size:18px;margin:0 0 8px">${h(b.text)}</h1>`;
      case 'paragraph':
        return `<p style="margin:0 0 12px">${h(b.text)}</p>`;
      case 'figures':
        return `<table role="presentation" cellpadding="4" style="border-collapse:collapse;margin:0 0 12px">${b.rows
          .map((r) => `<tr><td>${h(r.label)}</td><td><strong>${h(r.value)}</strong></td></tr>`)
          .join('')}</table>`;
      case 'ranked':
        return `<h2 style="font-size:15px;margin:16px 0 4px">${h(b.title)}</h2><ol style="margin:0 0 12px">${b.rows
          .map((r) => `<li>${h(rowName(r))} — <strong>${formatCount(r.count)}</strong></li>`)
          .join('')}</ol>`;
      case 'bullets':
        return `<ul style="margin:0 0 12px">${b.items.map((item) => `<li>${h(item)}</li>`).join('')}</ul>`;
      case 'link':
        return `<p style="margin:16px 0 0"><a href="${escapeHtml(safeHttpUrl(b.url) ?? '')}">${h(b.label)}</a></p>`;
    }
  };
  return (
    `<!doctype html><html><head><meta charset="utf-8"><title>${escapeHtml(subject)}</title></head>` +
    `<body style="${FONT}">${blocks.map(write).join('\n')}</body></html>\n`
  );
}
