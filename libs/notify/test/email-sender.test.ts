import { expect } from 'chai';
import { createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { NotificationMessage } from '@spoor/schemas';
import { EmailSender, isValidEmailAddress } from '../src/email-sender.js';
import { renderDigest } from '../src/digest-renderer.js';
import { overview } from './overview-fixtures.js';
import { readMessage } from './raw-message.js';
import { startSmtpCapture, type SmtpCapture } from '@spoor/testkit';

const FROM = 'Spoor <spoor@spoor.test>';
const digest = (): NotificationMessage =>
  renderDigest(overview({ actions: [{ name: '<script>alert(1)</script>', count: 7 }] }));

/** A port nothing listens on: bound once, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('EmailSender', () => {
  // Everything a test starts is closed after it, last started first.
  const closers: Array<() => unknown> = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });
  const capture = async (extra?: Parameters<typeof startSmtpCapture>[0]): Promise<SmtpCapture> => {
    const server = await startSmtpCapture(extra);
    closers.push(() => server.close());
    return server;
  };
  const senderFor = (opts: ConstructorParameters<typeof EmailSender>[0]): EmailSender => {
    const created = new EmailSender(opts);
    closers.push(() => created.close());
    return created;
  };
  let smtp: SmtpCapture;
  let sender: EmailSender;

  describe('against an open SMTP server', () => {
    beforeEach(async () => {
      smtp = await capture();
      sender = senderFor({ smtpUrl: `smtp://127.0.0.1:${smtp.port}`, from: FROM });
    });

    it('delivers one multipart text and HTML message to every recipient', async () => {
      const msg = digest();
      const outcome = await sender.send(['ops@acme.test', 'lead@acme.test'], msg);
      expect(outcome.ok, outcome.error ?? '').to.equal(true);
      expect(outcome.message_id).to.match(/^<.+@.+>$/);
      expect(outcome.error).to.equal(null);

      expect(smtp.received).to.have.length(1);
      const mail = smtp.received[0]!;
      expect(mail.mailFrom).to.equal('spoor@spoor.test');
      expect(mail.rcptTo).to.deep.equal(['ops@acme.test', 'lead@acme.test']);
      const parsed = readMessage(mail.raw);
      expect(parsed.header('subject')).to.deep.equal([msg.subject]);
      expect(parsed.header('to')).to.deep.equal(['ops@acme.test, lead@acme.test']);
      expect(parsed.header('message-id')).to.deep.equal([outcome.message_id]);
      expect(parsed.header('content-type')[0]).to.match(/^multipart\/alternative;/);

      const text = parsed.parts.find((p) => p.contentType === 'text/plain')!.body;
      for (const figure of [
        'Events: 12,345',
        'Sessions: 321',
        'Visitors: 210',
        'Bounce rate: 42.4%',
        'Median session: 1 min 5 s',
        '1. <script>alert(1)</script> — 7',
      ]) {
        expect(text).to.include(figure);
      }
      const html = parsed.parts.find((p) => p.contentType === 'text/html')!.body;
      expect(html)
        .to.include('<strong>12,345</strong>')
        .and.include('&lt;script&gt;alert(1)&lt;/script&gt;')
        .and.not.include('<script>');
    });

    it('cannot be made to add a header through the subject', async () => {
      const msg = { ...digest(), subject: 'Hi\r\nBcc: evil@x.test\r\nX-Injected: 1' };
      const outcome = await sender.send(['ops@acme.test'], msg);
      expect(outcome.ok, outcome.error ?? '').to.equal(true);
      const mail = smtp.received[0]!;
      expect(mail.rcptTo).to.deep.equal(['ops@acme.test']);
      const parsed = readMessage(mail.raw);
      expect(parsed.headerLines.filter((l) => /^(bcc|x-injected):/i.test(l))).to.deep.equal([]);
      expect(parsed.header('subject')).to.deep.equal(['Hi  Bcc: evil@x.test  X-Injected: 1']);
    });

    const refused: Array<[string, string[]]> = [
      ['an address carrying a Bcc header', ['ops@acme.test\r\nBcc: evil@x.test']],
      ['an address with a display name', ['Ops <ops@acme.test>']],
      ['two addresses in one string', ['ops@acme.test, evil@x.test']],
      ['a valid and an invalid address', ['ops@acme.test', 'nobody']],
      ['no recipients', []],
    ];
    for (const [name, to] of refused) {
      it(`refuses ${name} and sends nothing`, async () => {
        const outcome = await sender.send(to, digest());
        expect(outcome.ok).to.equal(false);
        expect(outcome.message_id).to.equal(null);
        expect(outcome.error).to.match(/recipient/);
        expect(outcome.error).not.to.match(/[\r\n]/);
        expect(smtp.received).to.have.length(0);
      });
    }

    it('sends once to a recipient listed twice', async () => {
      await sender.send(['ops@acme.test', ' ops@acme.test '], digest());
      expect(smtp.received[0]!.rcptTo).to.deep.equal(['ops@acme.test']);
    });
  });

  describe('against an SMTP server that requires AUTH', () => {
    const USER = 'spoor@acme.test';
    const PASS = 'p@ss w:rd/%';
    beforeEach(async () => {
      smtp = await capture({
        authOptional: false,
        onAuth(auth, _session, callback) {
          if (auth.username === USER && auth.password === PASS) callback(null, { user: auth.username });
          else callback(new Error('Invalid username or password'));
        },
      });
    });
    const url = (user: string, pass: string): string =>
      `smtp://${encodeURIComponent(user)}:${encodeURIComponent(pass)}@127.0.0.1:${smtp.port}`;

    it('logs in with the credentials of the URL', async () => {
      sender = senderFor({ smtpUrl: url(USER, PASS), from: FROM });
      const outcome = await sender.send(['ops@acme.test'], digest());
      expect(outcome.ok, outcome.error ?? '').to.equal(true);
      expect(smtp.received).to.have.length(1);
    });

    it('reports a refused login without throwing', async () => {
      sender = senderFor({ smtpUrl: url(USER, 'wrong'), from: FROM });
      const outcome = await sender.send(['ops@acme.test'], digest());
      expect(outcome.ok).to.equal(false);
      expect(outcome.error).to.match(/Invalid username or password|535/);
      expect(smtp.received).to.have.length(0);
    });
  });

  it('reports a recipient the server rejects', async () => {
    smtp = await capture({
      onRcptTo(address, _session, callback) {
        callback(
          address.address.endsWith('@acme.test')
            ? null
            : Object.assign(new Error('No such mailbox'), { responseCode: 550 }),
        );
      },
    });
    sender = senderFor({ smtpUrl: `smtp://127.0.0.1:${smtp.port}`, from: FROM });
    const outcome = await sender.send(['ghost@elsewhere.test'], digest());
    expect(outcome.ok).to.equal(false);
    expect(outcome.error).to.match(/No such mailbox|550/);
  });

  describe('without a reachable server', () => {
    it('fails fast on a closed port', async () => {
      sender = senderFor({ smtpUrl: `smtp://127.0.0.1:${await closedPort()}`, from: FROM, connectionTimeoutMs: 500 });
      const started = Date.now();
      const outcome = await sender.send(['ops@acme.test'], digest());
      expect(outcome).to.deep.include({ ok: false, message_id: null });
      expect(outcome.error).to.match(/ECONNREFUSED|connect/i);
      expect(Date.now() - started).to.be.below(2_000);
    });

    it('gives up on a server that never greets after connectionTimeoutMs', async () => {
      const sockets = new Set<Socket>();
      const silent = createServer((socket) => {
        sockets.add(socket);
      });
      closers.push(
        () =>
          new Promise<void>((resolve) => {
            for (const socket of sockets) socket.destroy();
            silent.close(() => resolve());
          }),
      );
      await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
      const { port } = silent.address() as AddressInfo;
      sender = senderFor({ smtpUrl: `smtp://127.0.0.1:${port}`, from: FROM, connectionTimeoutMs: 300 });
      const started = Date.now();
      const outcome = await sender.send(['ops@acme.test'], digest());
      expect(outcome.ok).to.equal(false);
      expect(outcome.error).to.match(/greeting|timeout/i);
      expect(Date.now() - started).to.be.within(250, 2_000);
    });
  });

  describe('construction', () => {
    const bad: Array<[string, { smtpUrl: string; from: string }]> = [
      ['an http URL', { smtpUrl: 'http://mail.example', from: FROM }],
      ['a URL without a scheme', { smtpUrl: 'mail.example:25', from: FROM }],
      ['a From with a line break', { smtpUrl: 'smtp://mail.example', from: 'spoor@spoor.test\r\nBcc: evil@x.test' }],
      ['a From without an address', { smtpUrl: 'smtp://mail.example', from: 'Spoor' }],
    ];
    for (const [name, opts] of bad)
      it(`throws on ${name}`, () => expect(() => new EmailSender(opts)).to.throw(/EmailSender/));
  });

  describe('isValidEmailAddress', () => {
    const cases: Array<[string, boolean]> = [
      ['ops@acme.test', true],
      ['first.last+tag@sub.acme.test', true],
      ['x@y', true],
      ['nobody', false],
      ['@acme.test', false],
      ['ops@', false],
      ['ops@@acme.test', false],
      ['ops@.acme.test', false],
      ['ops@acme.test\r\nBcc: evil@x.test', false],
      ['ops@acme.test\n', false],
      ['ops\u0000@acme.test', false],
      ['Ops <ops@acme.test>', false],
      ['ops@acme.test, evil@x.test', false],
      ['"ops"@acme.test', false],
      ['o p@acme.test', false],
      [`${'a'.repeat(250)}@x.test`, false],
    ];
    for (const [address, valid] of cases) {
      it(`${JSON.stringify(address.length > 40 ? `${address.slice(0, 20)}…` : address)} is ${valid ? 'valid' : 'refused'}`, () => {
        expect(isValidEmailAddress(address)).to.equal(valid);
      });
    }
  });
});
