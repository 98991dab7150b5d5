import { SMTPServer, type SMTPServerOptions } from 'smtp-server';
import type { AddressInfo } from 'node:net';

export interface CapturedMail {
  mailFrom: string | null;
  rcptTo: string[];
  raw: string;
}

export interface SmtpCapture {
  port: number;
  received: CapturedMail[];
  close(): Promise<void>;
}

/**
 * A real SMTP server on 127.0.0.1, port 0, keeping every message it accepts. Plain text only
 * (STARTTLS off), so AUTH has to be allowed without TLS for the authenticated case.
 */
export async function startSmtpCapture(extra: Partial<SMTPServerOptions> = {}): Promise<SmtpCapture> {
  const received: CapturedMail[] = [];
  const server = new SMTPServer({
    logger: false,
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    closeTimeout: 200,
    disableReverseLookup: true, // no DNS query for 127.0.0.1; the greeting still comes ~100 ms late (smtp-server's early-talker check)
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        received.push({
          mailFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : null,
          rcptTo: session.envelope.rcptTo.map((a) => a.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        callback();
      });
    },
    ...extra,
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.server.address() as AddressInfo).port;
  return { port, received, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
