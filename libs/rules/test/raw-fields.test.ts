import { expect } from 'chai';
import type { RuleRecord } from '@spoor/schemas';
import { rawFieldsRead, RulesCache } from '../src/index.js';
import { ruleRecord } from './fixtures.js';

// The DNS gate through logic (issue 42, item 1): what logic over an unverified origin's events
// may read. Cases from the probe that found the leak, and the shapes a var can take.
describe('rawFieldsRead: the raw event fields logic reads (issue 42)', () => {
  const cases: Array<[string, unknown, string[]]> = [
    ['the whole payload copied', { var: 'payload' }, ['payload']],
    ['a payload field in a condition', { '==': [{ var: 'payload.secret' }, 'guess'] }, ['payload.secret']],
    ['the IP', { var: 'ip' }, ['ip']],
    ['the user agent', { var: ['user_agent', 'none'] }, ['user_agent']],
    ['the URL and a query parameter', { cat: [{ var: 'url' }, { var: 'query.token' }] }, ['url', 'query.token']],
    ['the referrer', { var: 'referrer' }, ['referrer']],
    ['the city (below the country)', { var: 'geo.city' }, ['geo.city']],
    ['the whole event by ""', { var: '' }, ['(the whole event)']],
    ['the whole event by null', { var: null }, ['(the whole event)']],
    ['the whole event by an empty list', { var: [] }, ['(the whole event)']],
    ['a computed name', { var: { cat: ['pay', 'load'] } }, ['(a computed field name)']],
    ['a raw default of a summary field', { var: ['action', { var: 'ip' }] }, ['ip']],
    ['missing over raw names', { missing: ['payload.a', 'action'] }, ['payload.a']],
    ['missing_some over raw names', { missing_some: [1, ['ip', 'path']] }, ['ip']],
    [
      'inside an iterator',
      { some: [{ var: 'payload.items' }, { '==': [{ var: 'sku' }, 'x'] }] },
      ['payload.items', 'sku'],
    ],
    [
      'deep in logic, once each',
      { and: [{ var: 'ip' }, { or: [{ var: 'ip' }, { '!': { var: 'payload.x' } }] }] },
      ['ip', 'payload.x'],
    ],
    [
      'summary fields only',
      {
        and: [
          { '==': [{ var: 'action' }, 'signup'] },
          { var: 'browser.name' },
          { var: 'geo.country' },
          { var: 'utm.source' },
          { var: 'path' },
          { var: 'device.type' },
          { var: 'os' },
          { var: 'bot' },
          { var: 'timestamp' },
        ],
      },
      [],
    ],
    ['a constant', 'premium', []],
    ['no logic', null, []],
  ];
  for (const [label, logic, raw] of cases)
    it(label, () => {
      expect(rawFieldsRead(logic)).to.deep.equal(raw);
    });
});

describe('RulesCache leaves out attribute rules reading raw fields of an unverified project (issue 42)', () => {
  const rule = (rule_id: string, over: Partial<RuleRecord>) =>
    ruleRecord({ rule_id, kind: 'attribute', attribute: rule_id, ...over });
  const stored = [
    rule('copies-payload', { value: { var: 'payload' } }),
    rule('guesses-secret', { logic: { '==': [{ var: 'payload.secret' }, 'x'] }, value: 'yes' }),
    rule('browser', { value: { var: 'browser.name' } }),
    rule('rule-on-summary', { kind: 'classification', logic: { '>': [{ var: 'event_count' }, 1] }, attribute: null }),
  ];
  const stamps = { mget: async (keys: string[]) => keys.map(() => null), incr: async () => 1 };
  const cached = (readable: boolean | undefined) =>
    new RulesCache({ list: async () => stored }, stamps, {
      clock: () => 0,
      ...(readable === undefined ? {} : { rawFieldsReadable: async () => readable }),
    });
  const attributesOn = async (cache: RulesCache) => {
    const set = (await cache.forProjects(['p'])).get('p')!.set;
    const event = { action: 'click', browser: { name: 'Chrome' }, payload: { secret: 'x' } };
    const into: Record<string, unknown> = {};
    set.extract(event, into);
    return into;
  };

  it('unverified: only the rule reading summary fields sets its attribute', async () => {
    const cache = cached(false);
    expect((await cache.forProjects(['p'])).get('p')).to.include({ attribute: 1, classification: 1 });
    expect(await attributesOn(cache)).to.deep.equal({ browser: 'Chrome' });
  });

  it('verified (or no gate given): every rule runs', async () => {
    for (const cache of [cached(true), cached(undefined)]) {
      expect(await attributesOn(cache)).to.deep.equal({
        'copies-payload': { secret: 'x' },
        'guesses-secret': 'yes',
        browser: 'Chrome',
      });
    }
  });
});
