import { expect } from 'chai';
import { fillSeries, MAX_SERIES_POINTS, seriesBucketMs } from '../src/overview-builder.js';
import { jobWindow } from '../src/job-window.js';
import type { JobRecord } from '@spoor/schemas';

const H = 3_600_000;
const D = 24 * H;

describe('overview series buckets', function () {
  const cases: Array<[string, number, number]> = [
    ['one hour', H, 60_000],
    ['two hours', 2 * H, 60_000],
    ['one day', D, 900_000],
    ['a week', 7 * D, H],
    ['thirty days', 30 * D, 6 * H],
    ['a year', 365 * D, 2 * D],
    ['one millisecond', 1, 60_000],
  ];
  for (const [name, span, bucket] of cases) {
    it(`charts ${name} in buckets of ${bucket} ms, at most ${MAX_SERIES_POINTS} of them`, function () {
      const ms = seriesBucketMs({ start: 1_000, end: 1_000 + span });
      expect(ms).to.equal(bucket);
      expect(Math.ceil(span / ms)).to.be.at.most(MAX_SERIES_POINTS);
    });
  }

  it('fills the gaps between stored buckets with zeros, oldest first, the last bucket cut by the window', function () {
    const w = { start: 0, end: 250 };
    const filled = fillSeries(w, 100, [
      { start: 200, events: 1, visitors: 1, sessions: 0 },
      { start: 0, events: 4, visitors: 2, sessions: 1 },
    ]);
    expect(filled).to.deep.equal([
      { start: 0, events: 4, visitors: 2, sessions: 1 },
      { start: 100, events: 0, visitors: 0, sessions: 0 },
      { start: 200, events: 1, visitors: 1, sessions: 0 },
    ]);
  });
});

describe('jobWindow', function () {
  const job = (request: Record<string, unknown>, created_at = 10 * D): JobRecord => ({
    job_id: 'j',
    account_id: 'a',
    project_id: 'p',
    kind: 'aggregation',
    status: 'running',
    request,
    created_at,
    started_at: null,
    finished_at: null,
    progress: null,
    result: null,
    error: null,
    attempts: 1,
    worker: null,
    updated_at: created_at,
  });

  it('covers the day before the job without a window, and runs a bare start to the job', function () {
    expect(jobWindow(job({}))).to.deep.equal({ start: 9 * D, end: 10 * D });
    expect(jobWindow(job({ window_start: 5 * D }))).to.deep.equal({ start: 5 * D, end: 10 * D });
    expect(jobWindow(job({ window_start: 1, window_end: 2 }))).to.deep.equal({ start: 1, end: 2 });
  });

  it('never reaches before the epoch, and refuses an empty window', function () {
    expect(jobWindow(job({ window_end: H }))).to.deep.equal({ start: 0, end: H });
    expect(() => jobWindow(job({ window_end: 0 }))).to.throw(/must be before/);
    expect(() => jobWindow(job({ window_start: 5, window_end: 5 }))).to.throw(/must be before/);
  });
});
