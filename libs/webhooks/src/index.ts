// @spoor/webhooks: outgoing HTTP to user-given URLs, signed the Standard Webhooks way and kept
// away from private networks (DESIGN.md, webhooks).
export {
  generateWebhookSecret,
  decodeWebhookSecret,
  signWebhook,
  webhookHeaders,
  verifyWebhook,
  SECRET_BYTES,
  type WebhookHeaders,
  type VerifyOptions,
} from './standard-webhooks.js';
export { isBlockedAddress, checkWebhookUrl, systemLookup, type LookupFn, type UrlVerdict } from './ssrf-guard.js';
export { postJson, parseRetryAfter, type PostOptions, type DeliveryOutcome } from './outbound-post.js';
export { nextRetryDelay, WEBHOOK_RETRY, DISABLE_AFTER_MS } from './retry-backoff.js';
