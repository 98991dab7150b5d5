import { randomUUID } from 'node:crypto';
import { loadConfig } from '@spoor/config';
import { serviceModules } from '@spoor/host';
import { createLogger } from '@spoor/service-log';
import { runServices, type RunningProcess } from '@spoor/runtime';
import type { ProjectRecord } from '@spoor/schemas';
import type { Store } from '@spoor/store';
import { makeTempDir } from '@spoor/testkit';
import { DESKTOP_CHROME } from './browser-visitor.js';
import { modeEnv, type Mode } from './engine-env.js';

export interface Harness {
  url: string;
  store: Store;
  process: RunningProcess;
  stop(): Promise<void>;
}

/** Starts every service in this process, as `npm start` does, on port 0. Null: engines missing. */
export async function startSpoor(mode: Mode, extraEnv: Record<string, string> = {}): Promise<Harness | null> {
  const env = await modeEnv(mode, await makeTempDir('spoor-data'));
  if (!env) return null;
  const config = loadConfig({ ...env, ...extraEnv });
  const running = await runServices(config, serviceModules, createLogger('test', config.logLevel));
  return { url: running.http!.url, store: running.adapters.store, process: running, stop: () => running.stop() };
}

/** Registers a project the way the gateway will: through the store. */
export async function registerProject(
  store: Store,
  origin: string,
  project: string,
  accountId = 'acct-test',
): Promise<ProjectRecord> {
  const record: ProjectRecord = {
    project_id: randomUUID(),
    origin,
    project,
    account_id: accountId,
    verified: false,
    verification_token: randomUUID(),
    created_at: Date.now(),
  };
  await store.projects.create(record);
  return record;
}

/** Polls `probe` until it returns a value that `done` accepts, or fails after `timeoutMs`. */
export async function waitFor<T>(
  probe: () => Promise<T>,
  done: (v: T) => boolean,
  timeoutMs = 20_000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T = await probe();
  while (!done(last)) {
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}; last value: ${JSON.stringify(last)?.slice(0, 500)}`);
    await new Promise((r) => setTimeout(r, 100));
    last = await probe();
  }
  return last;
}

export interface PostResult {
  status: number;
  body: any;
  headers: Headers;
}

export async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<PostResult> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    /* keep text */
  }
  return { status: res.status, body: parsed, headers: res.headers };
}

/** Posts events to POST /v1/event/batch as a browser on `origin` would: its Origin and a desktop Chrome user agent. */
export function postAsBrowser(spoorUrl: string, origin: string, events: unknown[]): Promise<PostResult> {
  return post(`${spoorUrl}/v1/event/batch`, { events }, { origin, 'user-agent': DESKTOP_CHROME });
}
