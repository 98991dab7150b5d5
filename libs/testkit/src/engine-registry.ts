import { dockerAnswers } from './docker-probe.js';
import type { StartedEngine } from './started-engine.js';
import { removeTempDirs } from './temp-dir-registry.js';

export type EngineName = 'kafka' | 'clickhouse' | 'redis' | 'chromium';

export interface EngineDefinition {
  name: EngineName;
  /** Set it to use an engine you started yourself; nothing is started then. */
  envVar: string;
  startLocal(): Promise<StartedEngine>;
  startContainer(): Promise<StartedEngine>;
}

const starting = new Map<EngineName, Promise<string | null>>();
const running = new Set<StartedEngine>();
const skipped = new Map<EngineName, string>();
let bannerHookInstalled = false;

export function infraRequired(): boolean {
  return ['1', 'true'].includes(process.env.SPOOR_REQUIRE_INFRA ?? '');
}

/**
 * `SPOOR_TEST_ENGINES=none` (set by `npm run test:unit`): start no engine — Kafka, ClickHouse,
 * Redis, dnsmasq, Chromium — and skip what needs one, without trying (issue 20, item 5). The
 * engines' own variables (SPOOR_KAFKA_BROKERS, …) still count: an engine you run is used.
 */
export function enginesOff(): boolean {
  const off = enginesOffSet();
  if (off && infraRequired())
    throw new Error('SPOOR_TEST_ENGINES=none and SPOOR_REQUIRE_INFRA=1 contradict each other');
  return off;
}

const enginesOffSet = () => (process.env.SPOOR_TEST_ENGINES ?? '') === 'none';

/** Engines a unit run did not start, kept for the whole run (the registry's own tests stop and restart it). */
const leftOut = new Set<string>();

/** Notes an engine a unit run does not start; the run's end lists them, quietly. */
export function reportLeftOut(name: string): void {
  leftOut.add(name.replace(/-\d+$/, ''));
}

/** The one line a unit run ends with (mocha-root-hooks.ts), or null. */
export function leftOutLine(): string | null {
  if (leftOut.size === 0 || !enginesOffSet()) return null;
  return `testkit: SPOOR_TEST_ENGINES=none: tests that need ${[...leftOut].sort().join(', ')} were skipped; npm test runs them`;
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

async function launch(definition: EngineDefinition): Promise<StartedEngine> {
  if (await dockerAnswers()) {
    try {
      return await definition.startContainer();
    } catch (error) {
      process.stderr.write(
        `testkit: ${definition.name} container failed (${message(error).split('\n')[0]}); trying the local runner\n`,
      );
    }
  }
  return definition.startLocal();
}

export function reportSkip(name: EngineName, reason: string): void {
  skipped.set(name, reason);
  const [headline, ...details] = reason.split('\n');
  process.stderr.write(
    `\nSKIPPED: ${name} could not start: ${headline}\n${details.map((line) => `  | ${line}\n`).join('')}`,
  );
  if (!bannerHookInstalled) {
    bannerHookInstalled = true;
    process.on('exit', printSkippedBanner); // for runs that never call stopAllEngines
  }
}

async function start(definition: EngineDefinition): Promise<string | null> {
  try {
    const engine = await launch(definition);
    running.add(engine);
    return engine.url;
  } catch (error) {
    const reason = message(error);
    if (infraRequired()) throw new Error(`${definition.name} could not start: ${reason}`);
    reportSkip(definition.name, reason);
    return null;
  }
}

/**
 * An engine the caller owns alone (a fault test that halts it), stopped with the others by
 * stopAllEngines. Null, reported as SKIPPED, when it cannot start; under SPOOR_REQUIRE_INFRA it throws.
 */
export async function startOwned<E extends StartedEngine>(
  name: EngineName,
  startEngine: () => Promise<E>,
): Promise<E | null> {
  try {
    const engine = await startEngine();
    running.add(engine);
    return engine;
  } catch (error) {
    const reason = message(error);
    if (infraRequired()) throw new Error(`${name} could not start: ${reason}`);
    reportSkip(name, reason);
    return null;
  }
}

/**
 * The engine's address, starting it on first use. Every caller in the process shares one
 * start (and one failure): tests of several libraries run in one mocha process and must
 * not each boot their own broker.
 */
export function engineUrl(definition: EngineDefinition): Promise<string | null> {
  const fromEnv = process.env[definition.envVar];
  if (fromEnv !== undefined && fromEnv !== '') return Promise.resolve(fromEnv);
  if (enginesOff()) {
    reportLeftOut(definition.name);
    return Promise.resolve(null);
  }
  let pending = starting.get(definition.name);
  if (pending === undefined) {
    pending = start(definition);
    starting.set(definition.name, pending);
  }
  return pending;
}

export function printSkippedBanner(): void {
  if (skipped.size === 0) return;
  const lines = [...skipped].map(([name, reason]) => `  SKIPPED: ${name} could not start: ${reason.split('\n')[0]}`);
  process.stderr.write(
    `\n======== engines skipped: tests that need them did not run ========\n${lines.join('\n')}\n` +
      '  (SPOOR_REQUIRE_INFRA=1 turns this into a failure; see deploy/local/README.md)\n' +
      '====================================================================\n',
  );
  skipped.clear();
}

/** Stops every engine this process started, removes the temp dirs, reports skips. */
export async function stopAllEngines(): Promise<void> {
  const pending = [...starting.values()];
  starting.clear();
  await Promise.allSettled(pending); // a start still in flight is stopped too, not orphaned
  const engines = [...running];
  running.clear();
  await Promise.allSettled(engines.map((engine) => engine.stop()));
  await removeTempDirs();
  printSkippedBanner();
}
