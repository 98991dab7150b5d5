import { expect } from 'chai';
import { markdownToSlack } from '../src/slack-mrkdwn.js';

describe('markdownToSlack', () => {
  const cases: Array<[string, string, string]> = [
    ['bold', '**Spoor digest**', '*Spoor digest*'],
    [
      'a link, & escaped in the URL',
      '[Open the dashboard](https://x.example/?a=1&b=2)',
      '<https://x.example/?a=1&amp;b=2|Open the dashboard>',
    ],
    ['a bullet', '- **Events:** 12,345\n- **Sessions:** 3', '• *Events:* 12,345\n• *Sessions:* 3'],
    ['a dash inside a line', 'a - b', 'a - b'],
    [
      'backslash escapes become literal text',
      '\\*\\*bold\\*\\* \\[x\\]\\(http\\://evil\\)',
      '**bold** [x](http://evil)',
    ],
    ['an escaped backslash', 'back\\\\slash', 'back\\slash'],
    [
      'mentions and links from user text',
      '\\<!channel\\> \\<@U123\\> a & b',
      '&lt;!channel&gt; &lt;@U123&gt; a &amp; b',
    ],
    ['an unclosed bracket is text', '[not a link', '[not a link'],
    ['a bracket with no URL is text', '[label] (x)', '[label] (x)'],
    ['an escaped bracket inside a label', '[a\\]b](https://x.example/)', '<https://x.example/|a]b>'],
    ['non-ASCII is untouched', '21 Nov – 22 Nov ✓ 😀', '21 Nov – 22 Nov ✓ 😀'],
  ];
  for (const [name, input, expected] of cases) it(name, () => expect(markdownToSlack(input)).to.equal(expected));
});
