import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

// Standard Webhooks (https://www.standardwebhooks.com/): a message is signed as
// HMAC-SHA256("<id>.<timestamp>.<body>") with the endpoint's secret, sent as
// `webhook-signature: v1,<base64>`; the secret is shown as `whsec_<base64 key>`.

const PREFIX = 'whsec_';
export const SECRET_BYTES = { min: 24, max: 64 } as const;

/** A new endpoint secret: `whsec_` and the base64 of `bytes` random bytes (24 to 64). */
export function generateWebhookSecret(bytes = 32): string {
  if (!Number.isInteger(bytes) || bytes < SECRET_BYTES.min || bytes > SECRET_BYTES.max)
    throw new RangeError(`a webhook secret has ${SECRET_BYTES.min} to ${SECRET_BYTES.max} bytes, not ${bytes}`);
  return PREFIX + randomBytes(bytes).toString('base64');
}

/** The key bytes of a secret, with or without its `whsec_` prefix. */
export function decodeWebhookSecret(secret: string): Buffer {
  const key = Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64');
  if (key.length < SECRET_BYTES.min || key.length > SECRET_BYTES.max)
    throw new RangeError(
      `a webhook secret has ${SECRET_BYTES.min} to ${SECRET_BYTES.max} bytes, this one ${key.length}`,
    );
  return key;
}

export function signWebhook(secret: string, msgId: string, timestampSeconds: number, body: string): string {
  const mac = createHmac('sha256', decodeWebhookSecret(secret))
    .update(`${msgId}.${timestampSeconds}.${body}`)
    .digest('base64');
  return `v1,${mac}`;
}

export type WebhookHeaders = Record<string, string> & {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
};

export function webhookHeaders(secret: string, msgId: string, timestampSeconds: number, body: string): WebhookHeaders {
  return {
    'webhook-id': msgId,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': signWebhook(secret, msgId, timestampSeconds, body),
  };
}

export interface VerifyOptions {
  /** Seconds a timestamp may be off the clock either way (replay window). */
  toleranceSeconds?: number;
  /** Milliseconds since the epoch. */
  now?: number;
}

/**
 * What a receiver does: true when one of the (space-separated) v1 signatures matches and the
 * timestamp is within the tolerance. Constant-time comparison; never throws on bad input.
 */
export function verifyWebhook(
  secret: string,
  headers: Record<string, string | string[] | undefined>,
  body: string,
  opts: VerifyOptions = {},
): boolean {
  const one = (name: string) => {
    const v = headers[name] ?? headers[name.toLowerCase()];
    return Array.isArray(v) ? v[0] : v;
  };
  const id = one('webhook-id');
  const ts = one('webhook-timestamp');
  const sigs = one('webhook-signature');
  if (!id || !ts || !sigs || !/^\d+$/.test(ts)) return false;
  const skew = Math.abs((opts.now ?? Date.now()) / 1000 - Number(ts));
  if (skew > (opts.toleranceSeconds ?? 300)) return false;
  let expected: Buffer;
  try {
    expected = Buffer.from(signWebhook(secret, id, Number(ts), body).slice(3), 'base64');
  } catch {
    return false;
  }
  return sigs.split(' ').some((s) => {
    const [version, mac] = s.split(',', 2);
    if (version !== 'v1' || !mac) return false;
    const given = Buffer.from(mac, 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}
