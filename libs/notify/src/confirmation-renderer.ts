import type { NotificationMessage } from '@spoor/schemas';
import { escapeHtml, plainLine } from './text-escaping.js';

export interface ConfirmationInput {
  /** The project's `origin` and identifier, as the owner registered them. */
  project: string;
  channel: string;
  link: string;
  expiresInDays: number;
}

/**
 * The one mail an address gets before it confirms (issue 13): who asked, and the link. Nothing
 * else is ever mailed to it unless it follows the link, so Spoor cannot be used to spam a list.
 */
export function renderRecipientConfirmation(c: ConfirmationInput): NotificationMessage {
  const subject = plainLine(`Confirm Spoor notifications for ${c.project}`, 200);
  const lines = [
    `Someone added this address to the notification channel "${plainLine(c.channel, 100)}" of ${plainLine(c.project, 200)} on Spoor.`,
    `To receive its digests and alerts, confirm within ${c.expiresInDays} days: ${c.link}`,
    'If you did not expect this, ignore this mail: without confirmation nothing more is sent here.',
  ];
  const html =
    `<p>Someone added this address to the notification channel “${escapeHtml(c.channel)}” of ${escapeHtml(c.project)} on Spoor.</p>` +
    `<p><a href="${escapeHtml(c.link)}">Confirm to receive its digests and alerts</a> (within ${c.expiresInDays} days).</p>` +
    '<p>If you did not expect this, ignore this mail: without confirmation nothing more is sent here.</p>';
  return { subject, text: lines.join('\n\n'), markdown: lines.join('\n\n'), html };
}
