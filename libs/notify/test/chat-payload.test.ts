import { expect } from 'chai';
import type { NotificationMessage } from '@spoor/schemas';
import { CHAT_LIMITS, chatPayload, sendChat, truncateMessage, type ChatStyle } from '../src/chat-payload.js';
import { renderAlert } from '../src/alert-renderer.js';
import { renderDigest } from '../src/digest-renderer.js';
import { overview } from './overview-fixtures.js';
import { fetchPoster, startWebhookReceiver, type WebhookReceiver } from './webhook-receiver.js';

const digest = (): NotificationMessage =>
  renderDigest(overview({ actions: [{ name: '<!channel> @everyone *x*', count: 7 }] }), {
    dashboardUrl: 'https://spoor.example/p/web?a=1&b=2',
  });

/** An alert of 20 lines of 290 characters: about 6,000 characters of markdown. */
const longAlert = (): NotificationMessage =>
  renderAlert({
    title: 'Rule matched',
    origin: 'https://acme.example',
    project: 'web',
    at: Date.UTC(2026, 10, 21),
    lines: Array.from({ length: 20 }, (_, i) => `${String(i).padStart(2, '0')} ${'x'.repeat(287)}`),
  });

describe('chat-payload', () => {
  let receiver: WebhookReceiver;
  beforeEach(async () => {
    receiver = await startWebhookReceiver();
  });
  afterEach(async () => {
    await receiver.close();
  });

  const expected: Record<ChatStyle, (json: Record<string, unknown>, msg: NotificationMessage) => void> = {
    slack: (json) => {
      expect(Object.keys(json).sort()).to.deep.equal(['text', 'unfurl_links', 'unfurl_media', 'username']);
      const text = json.text as string;
      expect(text).to.match(/^\*Spoor digest: web \(https:\/\/acme\.example\)\*\n/);
      expect(text).to.include('• *Events:* 12,345');
      expect(text).to.include('<https://spoor.example/p/web?a=1&amp;b=2|Open the dashboard>');
      expect(text).to.include('&lt;!channel&gt;').and.not.to.include('<!channel>');
    },
    discord: (json, msg) => {
      expect(json.content).to.equal(msg.markdown);
      expect(json.allowed_mentions).to.deep.equal({ parse: [] });
      expect(json).not.to.have.property('text');
    },
    mattermost: (json, msg) => {
      expect(json.text).to.equal(msg.markdown);
      expect(json.text).to.include('@\u200beveryone');
    },
  };

  for (const style of Object.keys(expected) as ChatStyle[]) {
    it(`posts the ${style} payload as JSON to the webhook`, async () => {
      const msg = digest();
      const outcome = await sendChat(fetchPoster, receiver.url, style, msg);
      expect(outcome).to.deep.equal({ ok: true, status: 200, error: null });
      expect(receiver.received).to.have.length(1);
      const post = receiver.received[0]!;
      expect(post.method).to.equal('POST');
      expect(post.path).to.equal('/hooks/T000/B000');
      expect(post.contentType).to.equal('application/json');
      expect(post.json.username).to.equal('Spoor');
      expected[style](post.json, msg);
    });
  }

  it('reports the status when the platform refuses the payload', async () => {
    receiver.status = 400;
    expect(await sendChat(fetchPoster, receiver.url, 'slack', digest())).to.deep.equal({
      ok: false,
      status: 400,
      error: 'HTTP 400',
    });
  });

  it('turns a poster that throws into a failed outcome', async () => {
    const outcome = await sendChat(
      async () => {
        throw new Error('blocked: private address');
      },
      receiver.url,
      'discord',
      digest(),
    );
    expect(outcome).to.deep.equal({ ok: false, status: null, error: 'blocked: private address' });
    expect(receiver.received).to.have.length(0);
  });

  it('keeps Discord content within 2000 characters, cut at a line break', async () => {
    const msg = longAlert();
    expect(msg.markdown.length).to.be.above(CHAT_LIMITS.discord);
    await sendChat(fetchPoster, receiver.url, 'discord', msg);
    const content = receiver.received[0]!.json.content as string;
    expect(content.length).to.be.at.most(2000);
    expect(content).to.match(/\n…$/);
    expect(msg.markdown.startsWith(content.slice(0, -2))).to.equal(true);
  });

  it('keeps Slack text within 40,000 characters', () => {
    const lines = Array.from({ length: 2_000 }, (_, i) => `line ${i} ${'&'.repeat(20)}`);
    const msg = { subject: 's', text: '', html: '', markdown: lines.join('\n') };
    const text = chatPayload('slack', msg).text as string;
    expect(text.length).to.be.at.most(CHAT_LIMITS.slack);
    expect(text).to.match(/&amp;\n…$/);
  });

  it('falls back to the subject when there is no markdown body', () => {
    expect(chatPayload('mattermost', { subject: 'Hi *there*', text: '', html: '', markdown: '' }).text).to.equal(
      '**Hi \\*there\\***',
    );
  });

  describe('truncateMessage', () => {
    const cases: Array<[string, string, number, string]> = [
      ['leaves a short text alone', 'short', 10, 'short'],
      ['cuts at the last line break in the second half', 'aaaa\nbbbb\ncccccc', 12, 'aaaa\nbbbb\n…'],
      ['cuts mid-line when the only break is early', 'a\nbbbbbbbbbbbbbbbb', 10, 'a\nbbbbbbb…'],
      ['never keeps half a surrogate pair', `abcdefgh${'😀'.repeat(4)}`, 10, 'abcdefgh…'],
      ['keeps a whole surrogate pair', `abcdefgh${'😀'.repeat(4)}`, 11, 'abcdefgh😀…'],
      ['never ends in a lone backslash', 'abcdefg\\*hij', 9, 'abcdefg…'],
      ['keeps an escaped backslash whole', 'abcdef\\\\hijk', 9, 'abcdef\\\\…'],
    ];
    for (const [name, input, max, out] of cases) {
      it(name, () => {
        expect(truncateMessage(input, max)).to.equal(out);
        expect(truncateMessage(input, max).length).to.be.at.most(max);
      });
    }
  });
});
