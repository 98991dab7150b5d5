import { createTransport } from 'nodemailer';
import type { NotificationMessage } from '@spoor/schemas';
import { plainLine } from './text-escaping.js';

export interface EmailSenderOptions {
  /** smtp://[user:pass@]host[:port] or smtps://… (implicit TLS); credentials percent-encoded. */
  smtpUrl: string;
  /** The From header: "spoor@example.org" or "Spoor <spoor@example.org>". */
  from: string;
  /** How long to wait for the TCP (and TLS) connection and for the server's greeting. */
  connectionTimeoutMs?: number;
  /** How long the connection may sit idle once up. */
  socketTimeoutMs?: number;
}

export interface EmailOutcome {
  ok: boolean;
  message_id: string | null;
  error: string | null;
}

// RFC 5321 section 4.5.3.1.3: a path is at most 256 octets including the angle brackets.
const ADDRESS_MAX = 254;
// Deliberately narrower than RFC 5322: one local part, one domain, none of the characters that
// would start a display name, a group, a comment or a second address. With no whitespace and
// no control character allowed, an address cannot carry a CR/LF into a header or the envelope.
const ADDRESS = /^[^\s@<>()[\]\\,;:"]+@[^\s@<>()[\]\\,;:".][^\s@<>()[\]\\,;:"]*$/;
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** Whether `value` is one plain `local@domain` address, safe to put in a header. */
export function isValidEmailAddress(value: string): boolean {
  return value.length <= ADDRESS_MAX && !CONTROL.test(value) && ADDRESS.test(value);
}

/** Sends notifications by SMTP: one multipart/alternative (text and HTML) message per send. */
export class EmailSender {
  private readonly transport: ReturnType<typeof createTransport>;
  private readonly from: string;

  /** Throws on a URL that is not smtp:// or smtps://, or a From with control characters. */
  constructor(opts: EmailSenderOptions) {
    if (!/^smtps?:\/\//i.test(opts.smtpUrl))
      throw new Error('EmailSender: smtpUrl must start with smtp:// or smtps://');
    if (CONTROL.test(opts.from) || !opts.from.includes('@'))
      throw new Error('EmailSender: from must be one address, without control characters');
    this.from = opts.from;
    const connectionTimeout = opts.connectionTimeoutMs ?? 10_000;
    this.transport = createTransport({
      url: opts.smtpUrl,
      connectionTimeout,
      greetingTimeout: connectionTimeout,
      socketTimeout: opts.socketTimeoutMs ?? 60_000,
      // The messages are built from text we rendered; nothing in them should make nodemailer
      // read a local file or fetch a URL (an attachment `path`, say).
      disableFileAccess: true,
      disableUrlAccess: true,
    });
  }

  /** Never throws: an invalid recipient, a refused connection or a rejected message is in the outcome. */
  async send(to: string[], msg: NotificationMessage): Promise<EmailOutcome> {
    const recipients = [...new Set(to.map((a) => a.trim()))];
    const invalid = recipients.filter((a) => !isValidEmailAddress(a));
    if (recipients.length === 0) return failure('no recipients');
    if (invalid.length > 0)
      return failure(`invalid recipient address: ${JSON.stringify(plainLine(invalid[0] ?? '', 80))}`);
    try {
      const info = await this.transport.sendMail({
        from: this.from,
        to: recipients,
        // renderDigest and renderAlert already give one line; a message from elsewhere might not.
        subject: plainLine(msg.subject),
        text: msg.text,
        html: msg.html,
      });
      return { ok: true, message_id: typeof info.messageId === 'string' ? info.messageId : null, error: null };
    } catch (err) {
      return failure(err instanceof Error ? err.message : String(err));
    }
  }

  /** Closes pooled connections; the sender is unusable afterwards. */
  close(): void {
    this.transport.close();
  }
}

const failure = (error: string): EmailOutcome => ({ ok: false, message_id: null, error });
