import { expect } from 'chai';
import type { NotificationMessage, Overview } from '@spoor/schemas';
import { renderDigest } from '../src/digest-renderer.js';
import { escapeMarkdown, plainLine } from '../src/text-escaping.js';
import { emptyOverview, overview } from './overview-fixtures.js';

const formats = (m: NotificationMessage): Array<[string, string]> => [
  ['text', m.text],
  ['markdown', m.markdown],
  ['html', m.html],
];

describe('renderDigest', () => {
  it('names the project, origin and window in the subject', () => {
    expect(renderDigest(overview()).subject).to.equal(
      'Spoor digest: web (https://acme.example), 21 Nov 2026 00:00 – 22 Nov 2026 00:00 UTC',
    );
  });

  it('shows the window in the requested time zone', () => {
    const msg = renderDigest(overview(), { timeZone: 'Europe/Berlin' });
    expect(msg.subject).to.match(/, 21 Nov 2026 01:00 – 22 Nov 2026 01:00 Europe\/Berlin$/);
    expect(msg.text).to.include('21 Nov 2026 01:00 – 22 Nov 2026 01:00 Europe/Berlin');
  });

  it('gives the headline figures in every format', () => {
    const msg = renderDigest(overview());
    for (const line of [
      'Events: 12,345',
      'Sessions: 321',
      'Visitors: 210',
      'Bounce rate: 42.4%',
      'Median session: 1 min 5 s',
      '90th percentile session: 6 min 52 s',
    ]) {
      expect(msg.text).to.include(line);
    }
    expect(msg.markdown).to.include('- **Events:** 12,345').and.include('- **Bounce rate:** 42\\.4%');
    expect(msg.html).to.include('<td>Median session</td><td><strong>1 min 5 s</strong></td>');
  });

  it('lists the top 5 of each non-empty list and leaves empty lists out', () => {
    const msg = renderDigest(overview({ countries: [], browsers: [] }));
    expect(msg.text).to.include('Top actions\n  1. pageview — 812\n  2. click — 300');
    expect(msg.text).to.include('  5. share — 9');
    expect(msg.text).not.to.include('rage_click');
    expect(msg.text).not.to.include('zzz_seventh');
    for (const heading of ['Top entry pages', 'Top referrers', 'Top UTM sources', 'Top devices', 'Top tags'])
      expect(msg.text).to.include(heading);
    for (const [, body] of formats(msg))
      expect(body).not.to.include('Top countries').and.not.to.include('Top browsers');
  });

  it('orders a list by count even when it arrives unsorted, and names an empty name', () => {
    const msg = renderDigest(
      overview({
        referrers: [
          { name: '', count: 3 },
          { name: 'https://b.example/', count: 9 },
        ],
      }),
    );
    expect(msg.text).to.include('Top referrers\n  1. https://b.example/ — 9\n  2. (none) — 3');
  });

  it('shows each saved funnel as its steps with who reached them and the share of the first (issue 18)', () => {
    const funnels = [
      {
        name: 'Signup',
        steps: [
          { name: 'pageview', entered: 200 },
          { name: 'click', entered: 50 },
          { name: 'signup', entered: 5 },
        ],
      },
      {
        name: 'Empty',
        steps: [
          { name: 'a', entered: 0 },
          { name: 'b', entered: 0 },
        ],
      },
    ];
    const msg = renderDigest(overview(), { funnels });
    expect(msg.text).to.include('Funnel: Signup');
    for (const line of ['1. pageview: 200', '2. click: 50 (25%)', '3. signup: 5 (2.5%)', '1. a: 0', '2. b: 0'])
      expect(msg.text).to.include(line);
    expect(msg.text.indexOf('Funnel: Signup')).to.be.lessThan(msg.text.indexOf('Funnel: Empty'));
    expect(msg.html).to.include('<td>2. click</td><td><strong>50 (25%)</strong></td>');
    expect(renderDigest(overview()).text).not.to.include('Funnel:');
  });

  it('says clearly that an empty window had no sessions', () => {
    const msg = renderDigest(emptyOverview());
    for (const [format, body] of formats(msg)) {
      expect(body, format).to.include('No sessions in this window');
      expect(body, format).not.to.include('Bounce rate');
      expect(body, format).not.to.include('Top ');
    }
    expect(renderDigest(emptyOverview({ events: 4 })).text).to.include('No sessions in this window (4 events).');
  });

  it('links the dashboard only when the URL is http(s)', () => {
    const linked = renderDigest(overview(), { dashboardUrl: 'https://spoor.example/p/web?from=a&to=b' });
    expect(linked.text).to.include('Open the dashboard: https://spoor.example/p/web?from=a&to=b');
    expect(linked.markdown).to.include('[Open the dashboard](https://spoor.example/p/web?from=a&to=b)');
    expect(linked.html).to.include('<a href="https://spoor.example/p/web?from=a&amp;to=b">Open the dashboard</a>');
    for (const dashboardUrl of ['javascript:alert(1)', 'not a url', undefined]) {
      const msg = renderDigest(overview(), { dashboardUrl });
      for (const [format, body] of formats(msg)) expect(body, format).not.to.include('Open the dashboard');
    }
  });

  describe('with hostile user strings', () => {
    const hostile: Array<{ name: string; value: string; check(msg: NotificationMessage): void }> = [
      {
        name: 'a script tag',
        value: '<script>alert(1)</script>',
        check: (m) => expect(m.html).to.include('&lt;script&gt;alert(1)&lt;/script&gt;'),
      },
      {
        name: 'an attribute breakout',
        value: '"><img src=x onerror=alert(1)>',
        check: (m) => expect(m.html).to.include('&quot;&gt;&lt;img src=x'),
      },
      {
        name: 'markdown formatting',
        value: '**bold** _it_ `code` [x](http://evil.example) ~~s~~',
        check: (m) => {
          expect(m.markdown).to.include(
            '\\*\\*bold\\*\\* \\_it\\_ \\`code\\` \\[x\\]\\(http\\://evil\\.example\\) \\~\\~s\\~\\~',
          );
        },
      },
      {
        name: 'chat mentions',
        value: '@everyone <!channel> <@U123>',
        check: (m) => {
          expect(m.markdown).to.include('@\u200beveryone').and.not.to.include('@everyone');
          expect(m.markdown).not.to.include('<!channel>').and.not.to.include('<@U123>');
        },
      },
      {
        name: 'a header injection',
        value: 'x\r\nBcc: evil@x.test',
        check: (m) => {
          for (const [format, body] of formats(m))
            expect(
              body.split('\n').some((l) => l.startsWith('Bcc:')),
              format,
            ).to.equal(false);
        },
      },
      {
        name: 'a bidi override',
        value: '\u202Egpj.exe',
        check: (m) => {
          for (const [format, body] of formats(m)) expect(body, format).not.to.include('\u202E');
        },
      },
      {
        name: 'a 10 kB name',
        value: 'a'.repeat(10_000),
        check: (m) => {
          expect(m.text.length).to.be.below(3_000);
          expect(m.text).to.include(`${'a'.repeat(119)}…`);
        },
      },
    ];
    const placements: Array<[string, (v: string) => Partial<Overview>]> = [
      ['project', (v) => ({ project: v })],
      ['origin', (v) => ({ origin: v })],
      ['action', (v) => ({ actions: [{ name: v, count: 5 }] })],
      ['page', (v) => ({ pages: [{ name: v, count: 5 }] })],
      ['referrer', (v) => ({ referrers: [{ name: v, count: 5 }] })],
      ['tag', (v) => ({ tags: [{ name: v, count: 5 }] })],
    ];
    for (const h of hostile) {
      for (const [field, place] of placements) {
        it(`${h.name} as the ${field}`, () => {
          const msg = renderDigest(overview(place(h.value)));
          h.check(msg);
          expect(msg.html).not.to.match(/<(script|img)\b/);
          expect(msg.subject).not.to.match(/[\r\n]/);
          expect(msg.markdown).to.include(escapeMarkdown(plainLine(h.value).slice(0, 100)));
        });
      }
    }
  });
});
