import { expect } from 'chai';
import {
  formatCount,
  formatDuration,
  formatInstant,
  formatPercent,
  formatWindow,
  isValidTimeZone,
} from '../src/figure-format.js';

describe('figure-format', () => {
  describe('formatDuration', () => {
    const cases: Array<[number, string]> = [
      [0, '0 ms'],
      [850, '850 ms'],
      [999.6, '1 s'],
      [1_000, '1 s'],
      [5_400, '5.4 s'],
      [9_960, '10 s'],
      [42_000, '42 s'],
      [59_600, '1 min'],
      [65_000, '1 min 5 s'],
      [120_000, '2 min'],
      [412_000, '6 min 52 s'],
      [3_600_000, '1 h'],
      [5_400_000, '1 h 30 min'],
      [90_061_000, '1 d 1 h'],
      [NaN, 'n/a'],
      [-1, 'n/a'],
      [Infinity, 'n/a'],
    ];
    for (const [ms, expected] of cases)
      it(`${ms} ms reads "${expected}"`, () => expect(formatDuration(ms)).to.equal(expected));
  });

  describe('formatPercent', () => {
    const cases: Array<[number, string]> = [
      [0, '0%'],
      [0.4237, '42.4%'],
      [0.5, '50%'],
      [1, '100%'],
      [NaN, 'n/a'],
    ];
    for (const [share, expected] of cases)
      it(`${share} reads "${expected}"`, () => expect(formatPercent(share)).to.equal(expected));
  });

  it('formatCount groups thousands', () => {
    expect(formatCount(12_345)).to.equal('12,345');
    expect(formatCount(0)).to.equal('0');
    expect(formatCount(1_234_567)).to.equal('1,234,567');
  });

  describe('formatInstant', () => {
    const cases: Array<[number, string, string]> = [
      [Date.UTC(2026, 10, 21), 'UTC', '21 Nov 2026 00:00'],
      [Date.UTC(2026, 10, 21), 'Europe/Berlin', '21 Nov 2026 01:00'],
      [Date.UTC(2026, 8, 5, 23, 59), 'UTC', '5 Sep 2026 23:59'],
      [Date.UTC(2026, 0, 1, 3, 7), 'America/New_York', '31 Dec 2025 22:07'],
    ];
    for (const [ms, zone, expected] of cases)
      it(`${new Date(ms).toISOString()} in ${zone} reads "${expected}"`, () => {
        expect(formatInstant(ms, zone)).to.equal(expected);
      });

    it('throws RangeError for an unknown zone', () => {
      expect(() => formatInstant(0, 'Mars/Olympus')).to.throw(RangeError);
    });
  });

  it('formatWindow names the zone once, after both ends', () => {
    expect(formatWindow(Date.UTC(2026, 10, 21), Date.UTC(2026, 10, 22), 'UTC')).to.equal(
      '21 Nov 2026 00:00 – 22 Nov 2026 00:00 UTC',
    );
  });

  it('isValidTimeZone accepts IANA names and rejects others', () => {
    expect(isValidTimeZone('UTC')).to.equal(true);
    expect(isValidTimeZone('Europe/Berlin')).to.equal(true);
    expect(isValidTimeZone('Mars/Olympus')).to.equal(false);
    expect(isValidTimeZone('')).to.equal(false);
  });
});
