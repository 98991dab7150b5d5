// The stats query's date presets (issue 44; docs/analytics.md, Stats query): UTC days, hours and
// calendar months, across a month's, a year's and a leap day's edges.
import { expect } from 'chai';
import { presetRange } from '../src/stats-answer.js';

const at = (iso: string) => Date.parse(iso);

describe('Stats query presets', function () {
  const cases: Array<[string, Parameters<typeof presetRange>[0], string, string]> = [
    ['2026-11-28T18:20:00Z', 'today', '2026-11-28T00:00:00Z', '2026-11-29T00:00:00Z'],
    ['2026-11-28T18:20:00Z', '24h', '2026-11-27T19:00:00Z', '2026-11-28T19:00:00Z'],
    ['2026-11-28T18:00:00Z', '24h', '2026-11-27T19:00:00Z', '2026-11-28T19:00:00Z'],
    ['2026-11-28T18:20:00Z', '7d', '2026-11-22T00:00:00Z', '2026-11-29T00:00:00Z'],
    ['2026-03-01T00:00:00Z', '30d', '2026-01-31T00:00:00Z', '2026-03-02T00:00:00Z'],
    ['2026-12-31T23:59:59Z', 'month', '2026-12-01T00:00:00Z', '2027-01-01T00:00:00Z'],
    ['2026-02-10T08:00:00Z', '6mo', '2025-09-01T00:00:00Z', '2026-03-01T00:00:00Z'],
    ['2028-02-29T12:00:00Z', '12mo', '2027-03-01T00:00:00Z', '2028-03-01T00:00:00Z'],
  ];
  for (const [now, preset, start, end] of cases)
    it(`${preset} at ${now} is [${start}, ${end})`, function () {
      expect(presetRange(preset, at(now))).to.deep.equal({ start: at(start), end: at(end) });
    });
});
