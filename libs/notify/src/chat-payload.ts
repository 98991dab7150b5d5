import type { NotificationMessage } from '@spoor/schemas';
import { markdownToSlack } from './slack-mrkdwn.js';
import { escapeMarkdown } from './text-escaping.js';

export type ChatStyle = 'slack' | 'discord' | 'mattermost';

/** What an HTTP poster reports; the service injects an SSRF-guarded one. */
export interface ChatOutcome {
  ok: boolean;
  status: number | null;
  error: string | null;
}

/** POSTs a JSON body to a URL. Expected not to throw, but sendChat copes if it does. */
export type ChatPoster = (url: string, body: string) => Promise<ChatOutcome>;

// Message length limits of each platform's incoming webhooks:
// Discord rejects `content` over 2000 characters (400, BASE_TYPE_MAX_LENGTH);
// Slack truncates `text` past 40,000 (https://api.slack.com/methods/chat.postMessage#truncating);
// Mattermost 5.0+ allows 16,383 characters a post.
export const CHAT_LIMITS: Readonly<Record<ChatStyle, number>> = { discord: 2000, slack: 40_000, mattermost: 16_383 };

const USERNAME = 'Spoor';

/** The webhook JSON body for one platform. */
export function chatPayload(style: ChatStyle, msg: NotificationMessage): Record<string, unknown> {
  const markdown = msg.markdown.trim() === '' ? `**${escapeMarkdown(msg.subject)}**` : msg.markdown;
  switch (style) {
    case 'slack':
      // No link previews: a referrer an end user chose should not be fetched and shown.
      return {
        text: truncateMessage(markdownToSlack(markdown), CHAT_LIMITS.slack),
        username: USERNAME,
        unfurl_links: false,
        unfurl_media: false,
      };
    case 'discord':
      // allowed_mentions with no parse types: nothing in the message can ping anyone
      // (https://discord.com/developers/docs/resources/message#allowed-mentions-object).
      return {
        content: truncateMessage(markdown, CHAT_LIMITS.discord),
        username: USERNAME,
        allowed_mentions: { parse: [] },
      };
    case 'mattermost':
      return { text: truncateMessage(markdown, CHAT_LIMITS.mattermost), username: USERNAME };
  }
}

/** Posts the message to a chat webhook. Never throws: a failure is in the outcome. */
export async function sendChat(
  post: ChatPoster,
  url: string,
  style: ChatStyle,
  msg: NotificationMessage,
): Promise<ChatOutcome> {
  try {
    return await post(url, JSON.stringify(chatPayload(style, msg)));
  } catch (err) {
    return { ok: false, status: null, error: err instanceof Error ? err.message : String(err) };
  }
}

/**
 * At most `max` UTF-16 units (never fewer characters than the platforms count), ending in "…".
 * Cuts at the last line break when there is one in the second half, so no bold span, link or
 * escape is left open; otherwise mid-line, never inside a surrogate pair or after a lone `\`.
 */
export function truncateMessage(text: string, max: number): string {
  if (text.length <= max) return text;
  const lineEnd = text.lastIndexOf('\n', max - 2);
  if (lineEnd >= max / 2) return `${text.slice(0, lineEnd)}\n…`;
  let cut = text.slice(0, max - 1);
  if (/[\ud800-\udbff]$/.test(cut)) cut = cut.slice(0, -1);
  const backslashes = /\\*$/.exec(cut)?.[0].length ?? 0;
  if (backslashes % 2 === 1) cut = cut.slice(0, -1);
  return `${cut}…`;
}
