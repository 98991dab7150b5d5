import { escapeSlack } from './text-escaping.js';

// Slack mrkdwn from the markdown our renderers write (message-document.ts): `**bold**`,
// `[label](url)`, `- ` bullets and backslash escapes. It is not a general markdown converter.
//
// Slack has no escape for `*`, `_`, `~` or backticks
// (https://api.slack.com/reference/surfaces/formatting#escaping), so a user string such as
// "*sale*" may show in bold. That is cosmetic; what matters, links and mentions (`<!channel>`,
// `<@U123>`), needs `<` and `>`, and those are always escaped.

/** Converts renderer markdown to Slack mrkdwn. */
export function markdownToSlack(markdown: string): string {
  let out = '';
  let i = 0;
  while (i < markdown.length) {
    const c = markdown[i] ?? '';
    if (c === '\\' && i + 1 < markdown.length) {
      out += escapeSlack(markdown[i + 1] ?? '');
      i += 2;
    } else if (markdown.startsWith('**', i)) {
      out += '*';
      i += 2;
    } else if (c === '[' && readLink(markdown, i)) {
      const link = readLink(markdown, i)!;
      out += `<${escapeSlack(link.url)}|${markdownToSlack(link.label)}>`;
      i = link.end;
    } else if (markdown.startsWith('- ', i) && (i === 0 || markdown[i - 1] === '\n')) {
      out += '• ';
      i += 2;
    } else {
      out += escapeSlack(c);
      i += 1;
    }
  }
  return out;
}

/** `[label](url)` at `start`: the label ends at the first unescaped `]`, the URL has no `)`. */
function readLink(md: string, start: number): { label: string; url: string; end: number } | null {
  let j = start + 1;
  while (j < md.length && md[j] !== ']' && md[j] !== '\n') j += md[j] === '\\' ? 2 : 1;
  if (md[j] !== ']' || md[j + 1] !== '(') return null;
  const close = md.indexOf(')', j + 2);
  if (close < 0 || md.slice(j + 2, close).includes('\n')) return null;
  return { label: md.slice(start + 1, j), url: md.slice(j + 2, close), end: close + 1 };
}
