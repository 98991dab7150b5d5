/// <reference types="mocha" />
import { expect } from 'chai';
import {
  checkPayloadDepth,
  checkTimestamp,
  jsonDepthExceeds,
  MAX_FUTURE_MS,
  MAX_PAYLOAD_DEPTH,
  MIN_EVENT_TIMESTAMP,
} from '../src/event-guard-step.js';

/** `{a:{a:…}}` with `depth` levels of objects. */
function nested(depth: number): Record<string, unknown> {
  let value: Record<string, unknown> = {};
  for (let i = 1; i < depth; i++) value = { a: value };
  return value;
}

describe('event-guard-step', () => {
  describe('checkTimestamp', () => {
    const received = 1_732_262_400_000;
    const cases: Array<[string, number, 'invalid_timestamp' | null]> = [
      ['now', received, null],
      ['a year ago', received - 365 * 86_400_000, null],
      ['epoch', 0, 'invalid_timestamp'],
      ['in seconds, not milliseconds', 1_795_486_000, 'invalid_timestamp'],
      ['1 ms before 2000-01-01', MIN_EVENT_TIMESTAMP - 1, 'invalid_timestamp'],
      ['2000-01-01 exactly', MIN_EVENT_TIMESTAMP, null],
      ['exactly 24 h ahead', received + MAX_FUTURE_MS, null],
      ['24 h and 1 ms ahead', received + MAX_FUTURE_MS + 1, 'invalid_timestamp'],
      ['a year ahead', received + 365 * 86_400_000, 'invalid_timestamp'],
      ['negative', -1, 'invalid_timestamp'],
      ['fractional', received + 0.5, 'invalid_timestamp'],
      ['NaN', Number.NaN, 'invalid_timestamp'],
      ['Infinity', Number.POSITIVE_INFINITY, 'invalid_timestamp'],
      ['beyond safe integers', 2 ** 60, 'invalid_timestamp'],
    ];
    for (const [label, timestamp, expected] of cases) {
      it(label, () => expect(checkTimestamp(timestamp, received)).to.equal(expected));
    }
  });

  describe('payload depth', () => {
    const cases: Array<[string, unknown, number, boolean]> = [
      // [label, value, limit, exceeds]
      ['scalar', 5, 0, false],
      ['null', null, 0, false],
      ['empty object at limit 1', {}, 1, false],
      ['empty object at limit 0', {}, 0, true],
      ['arrays count as levels', [[[]]], 2, true],
      ['mixed arrays and objects', { a: [{ b: [1] }] }, 4, false],
      ['mixed arrays and objects over', { a: [{ b: [1] }] }, 3, true],
      ['wide but shallow', Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`k${i}`, { v: i }])), 2, false],
    ];
    for (const [label, value, limit, expected] of cases) {
      it(label, () => expect(jsonDepthExceeds(value, limit)).to.equal(expected));
    }

    it(`accepts a payload exactly ${MAX_PAYLOAD_DEPTH} deep and drops one deeper`, () => {
      expect(checkPayloadDepth(nested(MAX_PAYLOAD_DEPTH))).to.equal(null);
      expect(checkPayloadDepth(nested(MAX_PAYLOAD_DEPTH + 1))).to.equal('payload_too_deep');
    });

    it('handles 100,000 levels without overflowing the stack', () => {
      const deep = JSON.parse('['.repeat(100_000) + ']'.repeat(100_000)) as unknown;
      expect(checkPayloadDepth(deep)).to.equal('payload_too_deep');
    });

    it('terminates on a cyclic object', () => {
      const cyclic: Record<string, unknown> = {};
      cyclic['self'] = cyclic;
      expect(checkPayloadDepth(cyclic)).to.equal('payload_too_deep');
    });
  });
});
