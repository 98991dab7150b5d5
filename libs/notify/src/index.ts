// @spoor/notify: renders digests and alerts once, then delivers them by chat webhook or email.
export { renderDigest, type DigestFunnel, type DigestOptions } from './digest-renderer.js';
export { renderAlert, type AlertInput } from './alert-renderer.js';
export {
  chatPayload,
  sendChat,
  truncateMessage,
  CHAT_LIMITS,
  type ChatStyle,
  type ChatOutcome,
  type ChatPoster,
} from './chat-payload.js';
export { markdownToSlack } from './slack-mrkdwn.js';
export { EmailSender, isValidEmailAddress, type EmailSenderOptions, type EmailOutcome } from './email-sender.js';
export {
  formatDuration,
  formatPercent,
  formatCount,
  formatInstant,
  formatWindow,
  isValidTimeZone,
} from './figure-format.js';
export { escapeHtml, escapeMarkdown, escapeSlack, plainLine, safeHttpUrl } from './text-escaping.js';
export { renderRecipientConfirmation, type ConfirmationInput } from './confirmation-renderer.js';
