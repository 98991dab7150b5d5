import { expect } from 'chai';
import {
  clampLength,
  escapeHtml,
  escapeMarkdown,
  escapeSlack,
  markdownUrl,
  plainLine,
  safeHttpUrl,
} from '../src/text-escaping.js';

describe('text-escaping', () => {
  describe('escapeHtml', () => {
    const cases: Array<[string, string]> = [
      ['<script>alert(1)</script>', '&lt;script&gt;alert(1)&lt;/script&gt;'],
      ['"><img src=x onerror=alert(1)>', '&quot;&gt;&lt;img src=x onerror=alert(1)&gt;'],
      ["it's & done", 'it&#39;s &amp; done'],
      ['&amp;', '&amp;amp;'],
      ['plain /pricing', 'plain /pricing'],
    ];
    for (const [input, expected] of cases)
      it(`escapes ${JSON.stringify(input)}`, () => expect(escapeHtml(input)).to.equal(expected));
  });

  describe('escapeMarkdown', () => {
    const cases: Array<[string, string]> = [
      ['**bold** _it_', '\\*\\*bold\\*\\* \\_it\\_'],
      ['[x](http://evil)', '\\[x\\]\\(http\\://evil\\)'],
      ['`code` ~~s~~ # h | > q', '\\`code\\` \\~\\~s\\~\\~ \\# h \\| \\> q'],
      ['back\\slash', 'back\\\\slash'],
      ['<@123> @everyone', '\\<@\u200b123\\> @\u200beveryone'],
      ['pageview', 'pageview'],
    ];
    for (const [input, expected] of cases)
      it(`escapes ${JSON.stringify(input)}`, () => expect(escapeMarkdown(input)).to.equal(expected));
  });

  describe('escapeSlack', () => {
    const cases: Array<[string, string]> = [
      ['<!channel> & <@U123>', '&lt;!channel&gt; &amp; &lt;@U123&gt;'],
      ['<https://evil.example|click>', '&lt;https://evil.example|click&gt;'],
      ['*bold*', '*bold*'],
    ];
    for (const [input, expected] of cases)
      it(`escapes ${JSON.stringify(input)}`, () => expect(escapeSlack(input)).to.equal(expected));
  });

  describe('plainLine', () => {
    const cases: Array<[string, string, string]> = [
      ['CR LF', 'a\r\nBcc: evil@x.test', 'a  Bcc: evil@x.test'],
      ['tab, NUL and DEL', 'tab\there\u0000nul\u007fdel', 'tab here nul del'],
      ['Unicode line and paragraph separators', 'line\u2028sep\u2029para', 'line sep para'],
      ['bidi override and isolate marks', '\u202egpj.exe\u2066x\u2069', ' gpj.exe x '],
      ['nothing in ordinary text', 'unchanged – ok ✓', 'unchanged – ok ✓'],
    ];
    for (const [name, input, expected] of cases)
      it(`flattens ${name}`, () => expect(plainLine(input)).to.equal(expected));

    it('clamps to the given length with an ellipsis', () => {
      expect(plainLine('a'.repeat(500), 10)).to.equal(`${'a'.repeat(9)}…`);
    });
  });

  describe('clampLength', () => {
    it('never leaves half a surrogate pair', () => {
      const clamped = clampLength(`abc${'😀'.repeat(5)}`, 5); // the 5th unit is a high surrogate
      expect(clamped).to.equal('abc…');
      expect(clampLength('short', 5)).to.equal('short');
    });
  });

  describe('safeHttpUrl', () => {
    const cases: Array<[string | undefined, string | null]> = [
      ['https://spoor.example/p/web', 'https://spoor.example/p/web'],
      ['http://localhost:3000', 'http://localhost:3000/'],
      ['javascript:alert(1)', null],
      ['data:text/html,<script>', null],
      ['/relative/path', null],
      ['', null],
      [undefined, null],
    ];
    for (const [input, expected] of cases)
      it(`takes ${JSON.stringify(input)} as ${expected}`, () => expect(safeHttpUrl(input)).to.equal(expected));
  });

  it('markdownUrl encodes what would end a markdown or Slack link', () => {
    expect(markdownUrl('https://x.example/a(b)|c')).to.equal('https://x.example/a%28b%29%7Cc');
  });
});
