import type { RequestHandler } from 'express';
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';
import type { Bus } from '@spoor/bus';
import type { Store } from '@spoor/store';

/** Seconds: 0.5 ms to 30 s. */
const LATENCY = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
/** Messages per consumer batch. */
const SIZES = [1, 5, 20, 100, 500, 1000, 2500, 5000, 10000];
/**
 * The store calls that write what the pipeline carries, by repository and method, with the table
 * they insert into: `spoor_store_inserts_total` counts them, so an operator (and bench:cost) sees
 * how often the store pays an insert's fixed cost (issue 41, target 3).
 */
const PIPELINE_WRITES: Record<string, Record<string, string> | undefined> = {
  events: { insertEvents: 'events', insertRaw: 'events', insertEnriched: 'events', touchActions: 'actions' },
  sessions: { upsert: 'sessions' },
  classifications: { put: 'classifications' },
  tags: { add: 'tags' },
};
/** Jobs run for seconds to hours. */
const JOB_SECONDS = [0.05, 0.25, 1, 5, 15, 60, 300, 900, 3600];

const seconds = (startNs: bigint) => Number(process.hrtime.bigint() - startNs) / 1e9;

/**
 * The Node process' own figures (prom-client defaults: CPU, memory, event loop, GC), collected
 * once per Node process and served by every /metrics in it beside that process' own registry.
 * Each `collectDefaultMetrics` call starts a GC PerformanceObserver and an event-loop monitor
 * that are never stopped and hold their registry: with one per `runServices`, every Spoor a test
 * process started and stopped stayed reachable through the gauges' closures in that registry —
 * services, GeoIP buffers, DuckDB, clients — and the suite's mocha process grew to 7 GB (issue 20).
 */
let nodeRegistry: Registry | null = null;
const EVENT_LOOP_SAMPLE_MS = 200;
export function nodeProcessRegistry(): Registry {
  if (!nodeRegistry) {
    nodeRegistry = new Registry();
    // The event-loop delay is sampled every 200 ms, not prom-client's 10: its monitor is a timer,
    // and from the first scrape on it woke an idle process' HTTP thread 100 times a second,
    // 6 ms of CPU a second (issue 41). Stalls shorter than that still show in the histogram's
    // max when one lands on a sample; the p50–p99 of a loaded loop hardly move.
    collectDefaultMetrics({ register: nodeRegistry, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
  }
  return nodeRegistry;
}

/**
 * The figures an operator watches beside the counters and lag of /metrics (issue 19,
 * Observability): requests by route and status, consumer batches (size, duration, outcome),
 * publishes, store calls and job durations, in one registry per process (tests start several
 * processes' worth in one Node process). Routes are the declared templates, never raw paths, so
 * the label sets stay bounded.
 */
export class ProcessMetrics {
  readonly registry = new Registry();
  private readonly requests: Histogram<'method' | 'route' | 'status'>;
  private readonly batchSeconds: Histogram<'topic' | 'group' | 'outcome'>;
  private readonly batchSize: Histogram<'topic' | 'group'>;
  private readonly publishSeconds: Histogram<'topic' | 'outcome'>;
  private readonly storeSeconds: Histogram<'repository' | 'method' | 'outcome'>;
  private readonly jobSeconds: Histogram<'kind' | 'status'>;
  private readonly inserts: Counter<'table'>;

  constructor() {
    const registers = [this.registry];
    this.requests = new Histogram({
      name: 'spoor_http_request_duration_seconds',
      help: 'HTTP requests by method, route template and status',
      labelNames: ['method', 'route', 'status'],
      buckets: LATENCY,
      registers,
    });
    this.batchSeconds = new Histogram({
      name: 'spoor_consumer_batch_duration_seconds',
      help: 'Time a consumer took over one batch, by topic, group and outcome (ok, or failed and retried)',
      labelNames: ['topic', 'group', 'outcome'],
      buckets: LATENCY,
      registers,
    });
    this.batchSize = new Histogram({
      name: 'spoor_consumer_batch_size',
      help: 'Messages per consumer batch',
      labelNames: ['topic', 'group'],
      buckets: SIZES,
      registers,
    });
    this.publishSeconds = new Histogram({
      name: 'spoor_bus_publish_duration_seconds',
      help: 'Time until the bus acknowledged a publish, by topic and outcome',
      labelNames: ['topic', 'outcome'],
      buckets: LATENCY,
      registers,
    });
    this.storeSeconds = new Histogram({
      name: 'spoor_store_call_duration_seconds',
      help: 'Store calls (reads and writes) by repository, method and outcome',
      labelNames: ['repository', 'method', 'outcome'],
      buckets: LATENCY,
      registers,
    });
    this.inserts = new Counter({
      name: 'spoor_store_inserts_total',
      help: "The pipeline's writes reaching the store, by table (issue 41: a few per second under any load, not one per request)",
      labelNames: ['table'],
      registers,
    });
    this.jobSeconds = new Histogram({
      name: 'spoor_job_duration_seconds',
      help: 'Jobs from start to finish, by kind and final status',
      labelNames: ['kind', 'status'],
      buckets: JOB_SECONDS,
      registers,
    });
  }

  /** Express middleware: each request once it finished, labelled with the route it matched. */
  http(): RequestHandler {
    return (req, res, next) => {
      const start = process.hrtime.bigint();
      res.once('finish', () => {
        const route = req.route ? `${req.baseUrl}${String(req.route.path)}` : 'unmatched';
        this.requests.observe({ method: req.method, route, status: String(res.statusCode) }, seconds(start));
      });
      next();
    };
  }

  /** The fast lane's requests (libs/http FastLane), which express never sees. */
  fastRequest(method: string, route: string, status: number, durationSeconds: number): void {
    this.requests.observe({ method, route, status: String(status) }, durationSeconds);
  }

  jobFinished(kind: string, status: string, durationMs: number): void {
    this.jobSeconds.observe({ kind, status }, durationMs / 1000);
  }

  /** The bus with its publishes and every subscriber's batches measured. */
  bus(bus: Bus): Bus {
    // Given the running call, not a function that makes it: no closure here keeps a publish's
    // messages alive until the write returns (issue 14: they were most of what the HTTP thread
    // promoted).
    const timed = <T>(
      start: bigint,
      running: Promise<T>,
      done: (outcome: 'ok' | 'failed', s: number) => void,
    ): Promise<T> =>
      running.then(
        (out) => {
          done('ok', seconds(start));
          return out;
        },
        (err: unknown) => {
          done('failed', seconds(start));
          throw err;
        },
      );
    return {
      kind: bus.kind,
      // opts carries ingest's publish timeout (issue 16): dropping it here made requests hang again.
      publish: (topic, messages, opts) =>
        timed(process.hrtime.bigint(), bus.publish(topic, messages, opts), (outcome, s) =>
          this.publishSeconds.observe({ topic, outcome }, s),
        ),
      subscribe: (opts) =>
        bus.subscribe({
          ...opts,
          handler: (batch, ctx) => {
            this.batchSize.observe({ topic: opts.topic, group: opts.group }, batch.length);
            const start = process.hrtime.bigint();
            let running: Promise<void>;
            try {
              running = opts.handler(batch, ctx);
            } catch (err) {
              running = Promise.reject(err);
            }
            return timed(start, running, (outcome, s) =>
              this.batchSeconds.observe({ topic: opts.topic, group: opts.group, outcome }, s),
            );
          },
        }),
      lag: (topic, group) => bus.lag(topic, group),
      close: () => bus.close(),
    };
  }

  /** The store with every repository call measured (the store object itself is left as it is). */
  store(store: Store): Store {
    const wrapped = new Map<PropertyKey, unknown>();
    const repository = (name: string, repo: object) =>
      new Proxy(repo, {
        get: (target, method, receiver) => {
          const v = Reflect.get(target, method, receiver) as unknown;
          if (typeof v !== 'function' || typeof method !== 'string') return v;
          return (...args: unknown[]) => {
            const start = process.hrtime.bigint();
            const observe = (outcome: string) =>
              this.storeSeconds.observe({ repository: name, method, outcome }, seconds(start));
            const table = PIPELINE_WRITES[name]?.[method];
            if (table) this.inserts.inc({ table });
            const out = (v as (...a: unknown[]) => unknown).apply(target, args);
            if (!(out instanceof Promise)) return out;
            return out.then(
              (r) => {
                observe('ok');
                return r;
              },
              (err: unknown) => {
                observe('failed');
                throw err;
              },
            );
          };
        },
      });
    return new Proxy(store, {
      get: (target, prop) => {
        const v = Reflect.get(target, prop, target) as unknown;
        if (typeof v === 'function') return (v as (...a: unknown[]) => unknown).bind(target);
        if (typeof v !== 'object' || v === null || typeof prop !== 'string') return v;
        if (!wrapped.has(prop)) wrapped.set(prop, repository(prop, v));
        return wrapped.get(prop);
      },
    });
  }
}
