// `npm run bench:classify`: the classifier's throughput with 50 rules and a backfill of 100,000
// sessions, per mode, each against a baseline measured in the same run (CONVENTIONS.md,
// Benchmarks): pure rule evaluation for the classifier, a bare page-through of the same
// sessions for the backfill. See docs/performance.md, Classify.
import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { SessionClassifier } from '@spoor/classifier';
import { MemoryKv, RedisKv, type Kv } from '@spoor/kv';
import { createLogger } from '@spoor/logger';
import { compileRules, RulesCache } from '@spoor/rules';
import type { JobRecord, RuleRecord, SessionState } from '@spoor/schemas';
import { openStore, type Store } from '@spoor/store';
import { clickhouseUrl, makeTempDir, redisUrl, stopAllEngines } from '@spoor/testkit';
import { backfillJob } from '@spoor/worker';
import { describeMachine, machineInfo } from '../ingest/machine-info.js';
import { SeededRandom } from '../read/seeded-random.js';

type Mode = 'embedded' | 'kafka';

interface Options {
  modes: Mode[];
  /** Sessions classified for the throughput figure. */
  classifySessions: number;
  /** Sessions in the backfilled project. */
  backfillSessions: number;
  batch: number;
}

function options(argv: string[]): Options {
  const get = (name: string) => {
    const i = argv.indexOf(`--${name}`);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const modes = (get('modes') ?? 'embedded,kafka').split(',').map((m) => m.trim()) as Mode[];
  if (modes.some((m) => m !== 'embedded' && m !== 'kafka')) throw new Error('--modes takes embedded, kafka or both');
  return {
    modes,
    classifySessions: Number(get('classify-sessions') ?? 20_000),
    backfillSessions: Number(get('sessions') ?? 100_000),
    batch: Number(get('batch') ?? 500),
  };
}

const COUNTRIES = ['DE', 'FR', 'US', 'GB', 'NL', 'SE', 'PL', 'ES', 'IT', 'BR'];
const BROWSERS = ['Chrome', 'Firefox', 'Safari', 'Edge'];
const PAGES = ['/', '/pricing', '/docs', '/blog/launch', '/signup', '/contact'];
const ACTIONS = ['pageview', 'click', 'scroll', 'signup', 'download', 'search'];

/** 50 rules of the kinds users write: thresholds, actions, geography, browsers, entry pages. */
function fiftyRules(projectId: string, rng: SeededRandom): RuleRecord[] {
  const rules: RuleRecord[] = [];
  for (let i = 0; i < 50; i++) {
    let logic: unknown;
    switch (i % 5) {
      case 0: logic = { '>=': [{ var: 'event_count' }, 2 + (i % 20)] }; break;
      case 1: logic = { and: [{ '>': [{ var: `actions.${ACTIONS[i % ACTIONS.length]}` }, 0] }, { '>=': [{ var: 'duration_ms' }, 1000 * (i % 30)] }] }; break;
      case 2: logic = { in: [{ var: 'geo.country' }, [COUNTRIES[i % 10], COUNTRIES[(i + 3) % 10]]] }; break;
      case 3: logic = { and: [{ '==': [{ var: 'browser.name' }, BROWSERS[i % 4]] }, { '<': [{ var: 'page_count' }, 3] }] }; break;
      default: logic = { or: [{ in: [PAGES[i % PAGES.length], { var: 'entry_url' }] }, { '>': [{ '+': [{ var: 'actions.click' }, { var: 'actions.scroll' }] }, 10] }] };
    }
    rules.push({
      project_id: projectId, rule_id: `rule-${String(i).padStart(2, '0')}`, version: 1, kind: 'classification', logic,
      tags: rng.next() < 0.5 ? [`tag-${i % 10}`] : [], label: rng.next() < 0.3 ? `Label ${i % 7}` : null,
      attribute: null, value: null, description: null, enabled: true, created_at: 1, updated_at: 1, updated_by: 'bench',
    });
  }
  return rules;
}

function session(projectId: string, i: number, rng: SeededRandom): SessionState {
  const events = 1 + Math.floor(rng.next() * 30);
  const actions: Record<string, number> = {};
  for (let k = 0; k < events; k++) {
    const a = ACTIONS[Math.floor(rng.next() * ACTIONS.length)]!;
    actions[a] = (actions[a] ?? 0) + 1;
  }
  const at = Date.UTC(2026, 9, 1) + i * 1000;
  const entry = `https://bench.example${PAGES[Math.floor(rng.next() * PAGES.length)]}`;
  return {
    session_id: `bench-${String(i).padStart(7, '0')}`, project_id: projectId, first_event_at: at - events * 5000, last_event_at: at,
    duration_ms: events * 5000, event_count: events, actions, entry_url: entry, exit_url: entry, page_count: actions.pageview ?? 0,
    referrer: null, utm: { source: null, medium: null, campaign: null, term: null, content: null },
    browser: { name: BROWSERS[Math.floor(rng.next() * 4)]!, version: '120' }, os: { name: 'Linux', version: null },
    device: { type: 'desktop', vendor: null, model: null },
    geo: { country: COUNTRIES[Math.floor(rng.next() * 10)]!, region: null, city: null, latitude: null, longitude: null },
    attributes: {}, tags: [], classification: null, updated_at: at, seen: [],
  };
}

async function openMode(mode: Mode): Promise<{ store: Store; kv: Kv } | null> {
  if (mode === 'embedded') {
    const store = await openStore({ kind: 'duckdb', path: join(await makeTempDir('bench-classify'), 'spoor.duckdb'), memoryLimit: '1GB' });
    await store.migrate();
    return { store, kv: new MemoryKv() };
  }
  const [ch, redis] = await Promise.all([clickhouseUrl(), redisUrl()]);
  if (!ch || !redis) return null;
  const store = await openStore({ kind: 'clickhouse', url: ch, database: `bench_${randomUUID().replace(/-/g, '').slice(0, 10)}` });
  await store.migrate();
  return { store, kv: await RedisKv.connect(redis, `bench${Date.now()}.`) };
}

const seconds = (t0: number) => (performance.now() - t0) / 1000;

interface ModeResult {
  mode: Mode;
  classify: { sessions: number; pureRate: number; endToEndRate: number; ratio: number };
  backfill: { sessions: number; pageOnlySec: number; backfillSec: number; rate: number; ratio: number; result: unknown };
}

async function runMode(mode: Mode, o: Options): Promise<ModeResult | null> {
  const opened = await openMode(mode);
  if (!opened) return null;
  const { store, kv } = opened;
  try {
    const rng = new SeededRandom(42);
    const clock = () => Date.now();
    // Throughput: 50 rules, batches as the live service sees them, first verdicts (all written).
    const p1 = randomUUID();
    const rules = fiftyRules(p1, rng);
    for (const r of rules) await store.rules.put(r);
    await RulesCache.changed(kv, p1);
    const sessions = Array.from({ length: o.classifySessions }, (_, i) => session(p1, i, rng));
    const set = compileRules(rules);
    let t0 = performance.now();
    let matched = 0;
    for (const s of sessions) matched += set.classify(s as unknown as Record<string, unknown>).rule_ids.length;
    const pureRate = sessions.length / seconds(t0);
    const classifier = new SessionClassifier({ store, kv, clock });
    t0 = performance.now();
    for (let i = 0; i < sessions.length; i += o.batch) await classifier.classify(p1, sessions.slice(i, i + o.batch), { force: false, announce: false });
    const endToEndRate = sessions.length / seconds(t0);
    process.stdout.write(`${mode}: classify ${Math.round(endToEndRate)} sessions/s end to end, ${Math.round(pureRate)} pure (${(matched / sessions.length).toFixed(1)} rules matched per session)\n`);

    // Backfill: a project of N sessions, its rules just changed.
    const p2 = randomUUID();
    for (const r of fiftyRules(p2, rng)) await store.rules.put(r);
    for (let i = 0; i < o.backfillSessions; i += 5000) {
      await store.sessions.upsert(Array.from({ length: Math.min(5000, o.backfillSessions - i) }, (_, k) => session(p2, i + k, rng)));
    }
    t0 = performance.now();
    let cursor: string | null = null;
    let paged = 0;
    for (;;) {
      const page: SessionState[] = await store.sessions.page(p2, cursor, 500);
      if (!page.length) break;
      paged += page.length;
      cursor = page[page.length - 1]!.session_id;
    }
    const pageOnlySec = seconds(t0);
    const job: JobRecord = {
      job_id: randomUUID(), account_id: 'bench', project_id: p2, kind: 'backfill', status: 'running', request: {}, created_at: 0,
      started_at: 0, finished_at: null, progress: null, result: null, error: null, attempts: 1, worker: 'bench', updated_at: 0,
    };
    const run = backfillJob({ store, kv, classifier: new SessionClassifier({ store, kv, clock }), clock });
    t0 = performance.now();
    const result = await run(job, { progress: async () => {}, heartbeat: async () => {}, signal: new AbortController().signal, logger: createLogger('bench', 'error') });
    const backfillSec = seconds(t0);
    process.stdout.write(`${mode}: backfill of ${paged} sessions ${backfillSec.toFixed(1)} s (page-through alone ${pageOnlySec.toFixed(1)} s)\n`);
    return {
      mode,
      classify: { sessions: sessions.length, pureRate, endToEndRate, ratio: endToEndRate / pureRate },
      backfill: { sessions: paged, pageOnlySec, backfillSec, rate: paged / backfillSec, ratio: backfillSec / pageOnlySec, result },
    };
  } finally {
    await kv.close();
    await store.close();
  }
}

async function main(): Promise<number> {
  const o = options(process.argv.slice(2));
  const machine = machineInfo();
  process.stdout.write(`classify benchmark: ${o.classifySessions} sessions with 50 rules, backfill of ${o.backfillSessions}\nmachine: ${describeMachine(machine)}\n`);
  const results: ModeResult[] = [];
  const skipped: string[] = [];
  try {
    for (const mode of o.modes) {
      const r = await runMode(mode, o);
      if (r) results.push(r);
      else skipped.push(mode);
    }
  } finally {
    await stopAllEngines();
  }
  process.stdout.write('\n| mode | classify sessions/s | pure eval sessions/s | ratio | backfill sessions | backfill s | page-through s | ratio |\n|---|---|---|---|---|---|---|---|\n');
  for (const r of results) {
    process.stdout.write(`| ${r.mode} | ${Math.round(r.classify.endToEndRate)} | ${Math.round(r.classify.pureRate)} | ${r.classify.ratio.toFixed(3)} | ${r.backfill.sessions} | ${r.backfill.backfillSec.toFixed(1)} | ${r.backfill.pageOnlySec.toFixed(1)} | ${r.backfill.ratio.toFixed(1)} |\n`);
  }
  for (const m of skipped) process.stderr.write(`SKIPPED ${m}: its engines could not start\n`);
  const dir = join(process.cwd(), 'bench/results');
  await mkdir(dir, { recursive: true });
  const file = join(dir, `classify-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  await writeFile(file, JSON.stringify({ benchmark: 'classify', machine, options: o, results, skipped }, null, 2));
  process.stdout.write(`\nresults: ${file}\n`);
  return skipped.length ? 1 : 0;
}

process.exitCode = await main();
