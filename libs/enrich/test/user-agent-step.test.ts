/// <reference types="mocha" />
import { expect } from 'chai';
import { createUserAgentParser, isBot, type UserAgentInfo } from '../src/user-agent-step.js';

const UA = {
  chromeWindows:
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36',
  safariMac:
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Safari/605.1.15',
  firefoxUbuntu: 'Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0',
  chromeOs:
    'Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36',
  iphone:
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Mobile/15E148 Safari/604.1',
  ipad: 'Mozilla/5.0 (iPad; CPU OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Mobile/15E148 Safari/604.1',
  pixel:
    'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36',
  cubot:
    'Mozilla/5.0 (Linux; Android 9; CUBOT X19) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36',
  headless:
    'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/120.0.6099.28 Safari/537.36',
  smartTv:
    'Mozilla/5.0 (SMART-TV; Linux; Tizen 6.0) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/4.0 Chrome/76.0.3809.146 TV Safari/537.36',
  unicode: 'Mozilla/5.0 (Windows NT 6.1; Win64; x64; ☃ ü 中文) Gecko/20100101 Firefox/121.0 😀',
};

describe('user-agent-step', () => {
  describe('parse', () => {
    const cases: Array<[string, string, Partial<Record<'browser' | 'os' | 'device', object>>]> = [
      [
        'Chrome on Windows',
        UA.chromeWindows,
        {
          browser: { name: 'Chrome', version: '120.0.0.0' },
          os: { name: 'Windows', version: '10' },
          device: { type: 'desktop', vendor: null, model: null },
        },
      ],
      [
        'Safari on macOS',
        UA.safariMac,
        {
          browser: { name: 'Safari', version: '17.1' },
          os: { name: 'Mac OS', version: '10.15.7' },
          device: { type: 'desktop', vendor: 'Apple', model: 'Macintosh' },
        },
      ],
      [
        'Firefox on Ubuntu',
        UA.firefoxUbuntu,
        { os: { name: 'Ubuntu', version: null }, device: { type: 'desktop', vendor: null, model: null } },
      ],
      ['Chrome OS', UA.chromeOs, { device: { type: 'desktop', vendor: null, model: null } }],
      [
        'iPhone',
        UA.iphone,
        { os: { name: 'iOS', version: '17.1' }, device: { type: 'mobile', vendor: 'Apple', model: 'iPhone' } },
      ],
      ['iPad', UA.ipad, { device: { type: 'tablet', vendor: 'Apple', model: 'iPad' } }],
      [
        'Pixel',
        UA.pixel,
        { os: { name: 'Android', version: '14' }, device: { type: 'mobile', vendor: 'Google', model: 'Pixel 8' } },
      ],
      ['Tizen TV', UA.smartTv, { device: { type: 'smarttv', vendor: 'Samsung', model: null } }],
      [
        'headless Chromium',
        UA.headless,
        {
          browser: { name: 'Chrome Headless', version: '120.0.6099.28' },
          device: { type: 'desktop', vendor: null, model: null },
        },
      ],
      [
        'unicode',
        UA.unicode,
        { browser: { name: 'Firefox', version: '121.0' }, os: { name: 'Windows', version: '7' } },
      ],
      [
        'empty',
        '',
        {
          browser: { name: null, version: null },
          os: { name: null, version: null },
          device: { type: null, vendor: null, model: null },
        },
      ],
      [
        'curl',
        'curl/8.4.0',
        { browser: { name: null, version: null }, device: { type: null, vendor: null, model: null } },
      ],
      ['control characters', 'Mozilla/5.0 \u0000\u0007\t\n (', { device: { type: null, vendor: null, model: null } }],
    ];
    const parser = createUserAgentParser();
    for (const [label, ua, expected] of cases) {
      it(label, () => {
        const info = parser.parse(ua);
        for (const [field, value] of Object.entries(expected)) {
          expect(info[field as keyof UserAgentInfo], field).to.deep.equal(value);
        }
      });
    }

    it('survives a 10 KB user agent', () => {
      const huge = `Mozilla/5.0 (Windows NT 10.0) ${'A'.repeat(10 * 1024)} Chrome/120.0.0.0`;
      const info = parser.parse(huge);
      expect(info.bot).to.equal(false);
      expect(info.os.name).to.equal('Windows');
    });

    it('survives 10 KB of repeated tokens that stress regexes', () => {
      expect(() => parser.parse('Mozilla/5.0 ('.repeat(800))).not.to.throw();
      expect(() => parser.parse('; '.repeat(5000) + 'Android')).not.to.throw();
    });
  });

  describe('isBot', () => {
    const bots = [
      'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
      'Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)',
      'Mozilla/5.0 (compatible; Baiduspider/2.0; +http://www.baidu.com/search/spider.html)',
      'Mozilla/5.0 (compatible; YandexBot/3.0; +http://yandex.com/bots)',
      'DuckDuckBot/1.1; (+http://duckduckgo.com/duckduckbot.html)',
      'facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)',
      'Twitterbot/1.0',
      'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)',
      'Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)',
      'Mozilla/5.0 (compatible; SemrushBot/7~bl; +http://www.semrush.com/bot.html)',
      'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)',
      'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)',
      'Mozilla/5.0 (compatible; Yahoo! Slurp; http://help.yahoo.com/help/us/ysearch/slurp)',
      'Mozilla/5.0 (compatible; Google-InspectionTool/1.0)',
      'ia_archiver (+http://www.alexa.com/site/help/webmasters; crawler@alexa.com)',
      'Mozilla/5.0 (compatible; MyCustomCrawler/1.0)',
      'some-spider/2.0',
      'Mozilla/5.0 (compatible; crawling the web for science)',
      'UptimeRobot/2.0',
      '',
      '   ',
      // Automation (issue 20): a real engine driven by a program.
      UA.headless,
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/131.0.0.0 Safari/537.36',
      'Mozilla/5.0 (Unknown; Linux x86_64) AppleWebKit/538.1 (KHTML, like Gecko) PhantomJS/2.1.1 Safari/538.1',
      'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36 Puppeteer',
      'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36 Playwright/1.40',
      'Mozilla/5.0 (X11; Linux x86_64) Selenium/4.15 WebDriver',
      'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Cypress/13.6.0 Chrome/118.0.5993.159 Electron/27.1.3 Safari/537.36',
      'Mozilla/5.0 (Linux; Android 11; moto g power (2022)) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/119.0.0.0 Mobile Safari/537.36 Chrome-Lighthouse',
      'Mozilla/5.0 (Windows NT 6.1; WOW64) AppleWebKit/534.34 (KHTML, like Gecko) HtmlUnit/2.70 Safari/534.34',
    ];
    for (const ua of bots) it(`flags ${JSON.stringify(ua.slice(0, 60))}`, () => expect(isBot(ua)).to.equal(true));

    const people = [
      UA.chromeWindows,
      UA.safariMac,
      UA.iphone,
      UA.pixel,
      UA.cubot,
      UA.unicode,
      UA.firefoxUbuntu,
      UA.smartTv,
      'curl/8.4.0',
      'python-requests/2.31.0',
      'Go-http-client/1.1',
      'axios/1.6.2',
      'node-fetch/1.0',
      'PostmanRuntime/7.36.0',
      'Wget/1.21.4',
      'Java/17.0.2',
      'okhttp/4.12.0',
    ];
    for (const ua of people)
      it(`does not flag ${JSON.stringify(ua.slice(0, 60))}`, () => expect(isBot(ua)).to.equal(false));
  });

  describe('cache', () => {
    it('returns the same frozen result object for a repeated user agent', () => {
      const parser = createUserAgentParser();
      const first = parser.parse(UA.pixel);
      expect(parser.parse(UA.pixel)).to.equal(first);
      expect(Object.isFrozen(first) && Object.isFrozen(first.browser) && Object.isFrozen(first.device)).to.equal(true);
      expect(parser.cacheEntries).to.equal(1);
    });

    it('stays bounded', () => {
      const parser = createUserAgentParser({ cacheSize: 100 });
      for (let i = 0; i < 1000; i++) parser.parse(`${UA.chromeWindows} build/${i}`);
      expect(parser.cacheEntries).to.equal(100);
      const recent = parser.parse(`${UA.chromeWindows} build/999`);
      expect(parser.parse(`${UA.chromeWindows} build/999`)).to.equal(recent);
    });

    it('does not cache oversized user agents', () => {
      const parser = createUserAgentParser();
      parser.parse('x'.repeat(5000));
      expect(parser.cacheEntries).to.equal(0);
    });
  });
});
