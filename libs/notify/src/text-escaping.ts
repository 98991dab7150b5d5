// Escaping for every output format. Names of actions, paths, referrers, tags, projects and
// origins are written by end users' browsers, so every string that reaches a message is
// treated as hostile: flattened to one line, then escaped for the format it lands in.

// C0/C1 controls (a CR/LF would forge lines or headers), line/paragraph separators, and the
// bidi embedding/override/isolate marks that can make "gpj.exe" read as "exe.jpg"
// (CVE-2021-42574, "Trojan Source").
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** One line of plain text: controls become spaces, then clamped to `max` characters. */
export function plainLine(value: string, max = Number.POSITIVE_INFINITY): string {
  return clampLength(value.replace(CONTROL, ' '), max);
}

/** Cuts to at most `max` UTF-16 units, ending in an ellipsis, never inside a surrogate pair. */
export function clampLength(value: string, max: number): string {
  if (value.length <= max) return value;
  let cut = value.slice(0, Math.max(0, max - 1));
  if (/[\ud800-\udbff]$/.test(cut)) cut = cut.slice(0, -1);
  return `${cut}…`;
}

const HTML_ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text for an HTML element or a quoted attribute value. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => HTML_ENTITIES[c] ?? c);
}

// Every ASCII punctuation character may be backslash-escaped (CommonMark 0.31, section 2.4);
// these are the ones Discord, Mattermost or CommonMark give a meaning to somewhere in a line.
const MARKDOWN_SPECIAL = /[\\`*_{}[\]()#+\-.!|<>~=:]/g;

/**
 * Text for a markdown message. Besides the backslash escapes, a zero-width space goes after
 * every `@` so that a user string like "@everyone" or "@channel" cannot notify a whole chat
 * channel (Mattermost has no payload switch to turn mentions off).
 */
export function escapeMarkdown(value: string): string {
  return value.replace(MARKDOWN_SPECIAL, '\\$&').replace(/@/g, '@\u200b');
}

/**
 * Text for Slack mrkdwn. Slack defines only these three escapes; they are what keeps a user
 * string from becoming a link, a user mention or `<!channel>`
 * (https://api.slack.com/reference/surfaces/formatting#escaping).
 */
export function escapeSlack(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** The URL, normalised, if it is absolute http(s); null otherwise (no javascript:, no data:). */
export function safeHttpUrl(value: string | undefined): string | null {
  if (!value) return null;
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}

/**
 * A normalised URL as a markdown link destination: a parenthesis would end it early, and a `|`
 * would end the URL of the Slack link it is converted to (`<url|label>`).
 */
export function markdownUrl(href: string): string {
  return href.replace(/[()|]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}
