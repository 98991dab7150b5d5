// Issue 15, target 5: API reads are never queued behind analytics. While an endpoint is loaded a
// second time, the project's transitions job over the whole 30-day dataset runs one after another
// through the API (POST /v1/trigger/transitions, then GET /v1/jobs/{id} until it ended), as an
// owner who scheduled it or clicked it would; the read's p50 beside it is compared with its idle p50.
import type { BenchAccount } from './gateway-account.js';
import { DAY_MS } from './dataset-generator.js';

export interface JobRuns {
  /** Jobs that ended while the load ran (succeeded or failed). */
  ended: number;
  failed: number;
  /** Median time from the trigger's answer to the job's end as polled, ms. */
  medianMs: number | null;
  /** The first failure's text, when any. */
  firstError: string | null;
}

const POLL_MS = 50;

interface Answer {
  status: number;
  json: { job_id?: string; status?: string; error?: unknown } | null;
}

async function api(url: string, token: string, path: string, body?: unknown): Promise<Answer> {
  const res = await fetch(`${url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, json: text ? (JSON.parse(text) as Answer['json']) : null };
}

/**
 * Runs transitions jobs back to back until `during` settles, then waits for the one under way.
 * A 429 (the account's trigger limit) waits its Retry-After; any other refusal ends the driver
 * with the error counted.
 */
export async function besideJobs<T>(
  url: string,
  token: string,
  account: BenchAccount,
  endMs: number,
  during: () => Promise<T>,
): Promise<{ result: T; jobs: JobRuns }> {
  let stop = false;
  const times: number[] = [];
  const jobs: JobRuns = { ended: 0, failed: 0, medianMs: null, firstError: null };
  const fail = (text: string) => {
    jobs.failed++;
    jobs.firstError ??= text;
  };
  const body = {
    origin: account.origin,
    project: account.project,
    window_start: endMs - 31 * DAY_MS,
    window_end: endMs,
  };
  const driver = (async () => {
    while (!stop) {
      const queued = await api(url, token, '/v1/trigger/transitions', body);
      if (queued.status === 429) {
        await new Promise((r) => setTimeout(r, 1000));
        continue;
      }
      if (queued.status !== 200 || !queued.json?.job_id)
        return fail(`trigger answered ${queued.status}: ${JSON.stringify(queued.json)}`);
      const t0 = performance.now();
      for (;;) {
        await new Promise((r) => setTimeout(r, POLL_MS));
        const job = await api(url, token, `/v1/jobs/${queued.json.job_id}`);
        const status = job.json?.status as string | undefined;
        if (status === 'succeeded' || status === 'failed') {
          jobs.ended++;
          times.push(performance.now() - t0);
          if (status === 'failed') fail(`job failed: ${JSON.stringify(job.json?.error ?? job.json)}`);
          break;
        }
        if (job.status !== 200) return fail(`job answered ${job.status}`);
      }
    }
  })();
  try {
    return { result: await during(), jobs };
  } finally {
    stop = true;
    await driver;
    times.sort((a, b) => a - b);
    jobs.medianMs = times.length ? times[Math.floor(times.length / 2)]! : null;
  }
}
