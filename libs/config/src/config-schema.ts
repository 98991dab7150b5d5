import { isIP } from 'node:net';
import { z } from 'zod';

/** Services that `SPOOR_SERVICES` may name. Later issues add classifier and worker. */
export const SERVICE_NAMES = ['ingest', 'enricher', 'sessionizer', 'classifier', 'worker', 'gateway'] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];

const optionalText = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim()));

const urlOf = (protocols: string[]) =>
  optionalText.refine(
    (v) => {
      if (v === undefined) return true;
      try {
        return protocols.includes(new URL(v).protocol);
      } catch {
        return false;
      }
    },
    { message: `expected a URL (${protocols.join(' or ')})` },
  );

function isIpPort(v: string): boolean {
  const m = /^\[([^\]]+)\]:(\d{1,5})$/.exec(v) ?? /^([^:]+):(\d{1,5})$/.exec(v);
  return m !== null && isIP(m[1]!) !== 0 && Number(m[2]) <= 65535;
}

const hostPort = /^[A-Za-z0-9.\-]+:\d{1,5}$|^\[[0-9A-Fa-f:.]+\]:\d{1,5}$/;

const services = optionalText.transform((v, ctx): ServiceName[] => {
  if (v === undefined || v === 'all') return [...SERVICE_NAMES];
  const names = v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = names.filter((n) => !(SERVICE_NAMES as readonly string[]).includes(n));
  if (unknown.length > 0 || names.length === 0) {
    ctx.addIssue({
      code: 'custom',
      message: `unknown service(s) ${unknown.join(', ') || '(none)'}; expected a comma list of ${SERVICE_NAMES.join(', ')} or "all"`,
    });
    return z.NEVER;
  }
  return [...new Set(names)] as ServiceName[];
});

const port = (fallback: number) =>
  optionalText.transform((v, ctx) => {
    if (v === undefined) return fallback;
    const n = Number(v);
    if (!/^\d+$/.test(v) || n > 65535) {
      ctx.addIssue({ code: 'custom', message: 'expected an integer port 0-65535' });
      return z.NEVER;
    }
    return n;
  });

/** Milliseconds as digits, within [min, max]; `fallback` when unset. */
const millis = (fallback: number, min: number, max: number) =>
  optionalText.transform((v, ctx) => {
    if (v === undefined) return fallback;
    if (!/^\d+$/.test(v) || Number(v) < min || Number(v) > max) {
      ctx.addIssue({ code: 'custom', message: `expected milliseconds between ${min} and ${max}` });
      return z.NEVER;
    }
    return Number(v);
  });

const boolFlag = optionalText.transform((v, ctx) => {
  if (v === undefined) return false;
  if (/^(1|true|yes|on)$/i.test(v)) return true;
  if (/^(0|false|no|off)$/i.test(v)) return false;
  ctx.addIssue({ code: 'custom', message: 'expected true or false' });
  return z.NEVER;
});

/** A comma list of email addresses, lowercased; empty when unset. */
const emailList = optionalText.transform((v, ctx): string[] => {
  if (v === undefined) return [];
  const emails = v
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  const bad = emails.filter((e) => !z.string().email().safeParse(e).success);
  if (bad.length > 0) {
    ctx.addIssue({
      code: 'custom',
      message: `not an email address: ${bad.join(', ')}; expected a comma list of email addresses`,
    });
    return z.NEVER;
  }
  return [...new Set(emails)];
});

/** express "trust proxy": a boolean, a hop count, or a comma list of addresses/subnets. */
const trustProxy = optionalText.transform((v): boolean | number | string[] => {
  if (v === undefined || /^(0|false|no|off)$/i.test(v)) return false;
  if (/^(true|yes|on)$/i.test(v)) return true;
  if (/^\d+$/.test(v)) return Number(v);
  return v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
});

/** A whole number within [min, max] (0 may mean "off" where the caller says so); `fallback` when unset. */
const count = (fallback: number, min: number, max: number) =>
  optionalText.transform((v, ctx) => {
    if (v === undefined) return fallback;
    if (!/^\d+$/.test(v) || Number(v) < min || Number(v) > max) {
      ctx.addIssue({ code: 'custom', message: `expected a whole number between ${min} and ${max}` });
      return z.NEVER;
    }
    return Number(v);
  });

export const ConfigSchema = z.object({
  SPOOR_SERVICES: services,
  SPOOR_PORT: port(8080),
  SPOOR_HOST: optionalText.transform((v) => v ?? '127.0.0.1'),
  SPOOR_DATA_DIR: optionalText.transform((v) => v ?? './data'),
  SPOOR_KAFKA_BROKERS: optionalText.refine(
    (v) => v === undefined || v.split(',').every((b) => hostPort.test(b.trim())),
    { message: 'expected a comma list of host:port' },
  ),
  /**
   * Kafka over TLS and SASL (issue 46; deploy/k8s/README.md, "Secure connections"): managed and
   * operator-run brokers (MSK, Confluent Cloud, Aiven, Strimzi) listen on SSL or SASL_SSL. The
   * files are PEM, read once at start (connection-security.ts); the CA replaces the system's.
   */
  SPOOR_KAFKA_TLS: boolFlag,
  SPOOR_KAFKA_TLS_CA_FILE: optionalText,
  SPOOR_KAFKA_TLS_CERT_FILE: optionalText,
  SPOOR_KAFKA_TLS_KEY_FILE: optionalText,
  SPOOR_KAFKA_SASL_MECHANISM: optionalText
    .transform((v) => v?.toLowerCase())
    .pipe(z.enum(['plain', 'scram-sha-256', 'scram-sha-512']).optional()),
  SPOOR_KAFKA_SASL_USERNAME: optionalText,
  SPOOR_KAFKA_SASL_PASSWORD: optionalText,
  SPOOR_KAFKA_SASL_PASSWORD_FILE: optionalText,
  SPOOR_CLICKHOUSE_URL: urlOf(['http:', 'https:']),
  /** PEM files for an https:// SPOOR_CLICKHOUSE_URL (issue 46): a private CA, a client certificate. */
  SPOOR_CLICKHOUSE_TLS_CA_FILE: optionalText,
  SPOOR_CLICKHOUSE_TLS_CERT_FILE: optionalText,
  SPOOR_CLICKHOUSE_TLS_KEY_FILE: optionalText,
  SPOOR_CLICKHOUSE_DATABASE: optionalText
    .transform((v) => v ?? 'spoor')
    .refine((v) => /^[A-Za-z_][A-Za-z0-9_]{0,63}$/.test(v), { message: 'expected an identifier' }),
  SPOOR_REDIS_URL: urlOf(['redis:', 'rediss:']),
  /** PEM files for a rediss:// SPOOR_REDIS_URL (issue 46): a private CA, a client certificate. */
  SPOOR_REDIS_TLS_CA_FILE: optionalText,
  SPOOR_REDIS_TLS_CERT_FILE: optionalText,
  SPOOR_REDIS_TLS_KEY_FILE: optionalText,
  SPOOR_DUCKDB_MEMORY: optionalText
    .transform((v) => v ?? '1GB')
    .refine((v) => /^\d+(\.\d+)?\s*(KB|MB|GB|TB|KiB|MiB|GiB|TiB)$/i.test(v), {
      message: 'expected a size such as 512MB or 2GB',
    }),
  /**
   * How many of the latest events' keys the embedded store remembers, so that their repeats are
   * stored once (issue 14, docs/ingestion.md): DuckDB holds the index in memory, ~25 MiB per
   * 500,000 keys, and keeps up to twice this many (~50 MiB) before it cuts back.
   */
  SPOOR_DUCKDB_KEY_WINDOW: count(500_000, 1_000, 100_000_000),
  /**
   * DuckDB's threads for the API's reads and the pipeline's writes (issue 15): one by default,
   * which costs each small read ~0.45 ms less CPU; jobs, funnels, retention, exports and erasures
   * run on every core whatever this says (libs/store/src/duckdb/duckdb-threads.ts).
   */
  SPOOR_DUCKDB_THREADS: count(1, 1, 256),
  /**
   * How co-located services pass events on (issue 14): `local` (default) hands the enricher's
   * output to a sessionizer in the same process, and its summaries to a classifier there, within
   * the batch; `bus` publishes to the topics even then (a sessionizer elsewhere consumes them).
   */
  SPOOR_HANDOFF: optionalText.pipe(z.enum(['local', 'bus']).optional()).transform((v) => v ?? 'local'),
  /**
   * Where the consumers run in an all-in-one process (issue 14): `thread` (default) puts the
   * consumer services (enricher, sessionizer, classifier, worker) on a worker thread of their own
   * — embedded, with DuckDB and the memory KV; on Kafka, ClickHouse and Redis, with clients of
   * their own —, so the HTTP thread only parses, validates and publishes; `main` keeps one
   * thread. A process mixing embedded and network adapters keeps one thread.
   */
  /**
   * How long a consumer gathers events before it pays a batch's fixed costs — a store insert per
   * table, a transaction, a KV round trip, an offset commit (issue 41): at the 100–1,000 events/s
   * real sites send, handling each request's one or two events alone cost 5–30× the CPU per event
   * of a full batch. An event is acknowledged once on the bus either way; only its storage waits,
   * so it is readable within about this long (plus the batch's own time). A batch goes without
   * waiting once a quarter of SPOOR_PIPELINE_BATCH events wait.
   */
  SPOOR_PIPELINE_LINGER_MS: millis(1_000, 0, 10_000),
  /**
   * The most events a consumer takes in one batch (issue 41; the size half of the size-or-time
   * bound). 5,000, not more: a DuckDB transaction of 10,000 events cost more per event than two of
   * 5,000 (saturated, single events: 5,361 against 5,937 stored a second).
   */
  SPOOR_PIPELINE_BATCH: count(5_000, 100, 100_000),
  SPOOR_PIPELINE_THREAD: optionalText.pipe(z.enum(['thread', 'main']).optional()).transform((v) => v ?? 'thread'),
  /**
   * When the embedded log is forced to the disk before or after a 200 (issue 16; docs/reliability.md,
   * "Power loss"): `always` fdatasyncs each group commit before its appends are answered;
   * `interval` (default) every SPOOR_BUS_FSYNC_INTERVAL_MS in the background; `never` leaves it
   * to the kernel. A killed process loses nothing acknowledged in any mode.
   */
  SPOOR_BUS_FSYNC: optionalText
    .pipe(z.enum(['always', 'interval', 'never']).optional())
    .transform((v) => v ?? 'interval'),
  SPOOR_BUS_FSYNC_INTERVAL_MS: millis(1000, 10, 60_000),
  /**
   * How long raw events (client IPs included) stay on the bus (issue 43; docs/data.md, "What is
   * stored"): the embedded log closes a segment at a quarter of it (hourly at most) and deletes
   * it once every group consumed it; Kafka topics Spoor creates get it as `retention.ms`. Whole
   * hours, 1 to 8,760.
   */
  SPOOR_BUS_RETENTION_HOURS: count(24, 1, 8_760),
  /**
   * How far V8 lets each JavaScript heap of the process grow past what survived its last full
   * collection, in percent (V8's `--heap-growing-percent`; issue 14, target 5). Under load V8
   * chose a factor of ~3, so each of the two threads' heaps reached ~300 MiB for ~90 MiB alive;
   * 50 holds them near 1.5 times their live data for a few % more CPU. 0 leaves it to V8.
   */
  SPOOR_HEAP_GROWING_PERCENT: count(50, 0, 1000),
  /**
   * Partitions and replication factor of the topics Spoor creates at start-up (issue 19): the
   * partition count caps how many copies of one consumer share a topic (KEDA's maxReplicaCount).
   * Applied when a topic is created; an existing topic keeps its own (a warning says so).
   * Replication 0 leaves it to the broker's `default.replication.factor`.
   */
  SPOOR_KAFKA_PARTITIONS: count(4, 1, 10_000),
  SPOOR_KAFKA_REPLICATION_FACTOR: count(0, 0, 32),
  /**
   * A process whose services serve no HTTP routes (enricher, sessionizer, classifier, worker
   * alone) listens on SPOOR_HOST:SPOOR_PORT anyway, for /healthz, /livez and /metrics
   * (orchestrators' probes, Prometheus). Off by default: such a process opens no port.
   */
  SPOOR_HEALTH_HTTP: boolFlag,
  SPOOR_TOPIC_PREFIX: optionalText
    .transform((v) => v ?? 'spoor.')
    .refine((v) => /^[A-Za-z0-9._-]*$/.test(v), { message: 'expected letters, digits, dot, dash or underscore' }),
  SPOOR_TRUST_PROXY: trustProxy,
  SPOOR_GEOIP_DB: optionalText,
  SPOOR_IP_MODE: optionalText.pipe(z.enum(['full', 'truncate', 'hash']).optional()).transform((v) => v ?? 'full'),
  SPOOR_IP_SALT: optionalText,
  SPOOR_OIDC_ISSUER: urlOf(['http:', 'https:']),
  SPOOR_OIDC_AUDIENCE: optionalText,
  /** Operators' accounts (DESIGN.md, Operators): system-wide health, operator-scoped API keys. */
  SPOOR_ADMIN_EMAILS: emailList,
  SPOOR_SMTP_URL: urlOf(['smtp:', 'smtps:']),
  SPOOR_SMTP_FROM: optionalText.transform((v) => v ?? 'Spoor <spoor@localhost>'),
  /** Lets webhooks and chat channels target loopback and private networks (tests, an intranet). */
  SPOOR_WEBHOOK_ALLOW_PRIVATE: boolFlag,
  /** The first wait before a failed webhook delivery is tried again; later waits grow fourfold (tests shorten it). */
  SPOOR_WEBHOOK_RETRY_BASE_MS: millis(5_000, 10, 3_600_000),
  /** How often the worker looks for due schedules, threshold alerts and webhook retries. */
  SPOOR_WORKER_TICK_MS: millis(5_000, 100, 600_000),
  /** How often each process records its liveness and counters for /v1/status/health. */
  SPOOR_HEARTBEAT_MS: millis(10_000, 100, 600_000),
  /**
   * How often each process reads its consumers' lag in the background; unset (0 here): 1 s, or 5 s
   * on Kafka, where each reading asks the broker for two offsets per consumer group, a dozen groups
   * a process — most of an idle process' CPU and the broker's at 1 s (issue 41, idle CPU).
   */
  SPOOR_LAG_SAMPLE_MS: millis(0, 10, 60_000),
  /**
   * How long the gateway answers accounts and projects from memory (issue 15): this process'
   * own changes at once, another process' within this bound. 0: read them on every request.
   */
  SPOOR_GATEWAY_CACHE_MS: millis(2_000, 0, 60_000),
  /** How often one worker stores a health snapshot for /v1/status/health/history. */
  SPOOR_HEALTH_SNAPSHOT_MS: millis(60_000, 100, 3_600_000),
  // node:dns Resolver.setServers takes addresses, not names: an IP and a port.
  SPOOR_DNS_SERVER: optionalText.refine((v) => v === undefined || isIpPort(v), {
    message: 'expected ip:port, e.g. 127.0.0.1:53 or [::1]:53',
  }),
  SPOOR_PUBLIC_URL: urlOf(['http:', 'https:']),
  /**
   * How long ingest waits for the bus to acknowledge a write before answering 503 with
   * Retry-After (issue 16, docs/reliability.md): a broker that is away never makes a request hang.
   */
  SPOOR_INGEST_PUBLISH_TIMEOUT_MS: millis(5_000, 100, 120_000),
  /**
   * Backpressure (issue 16, docs/reliability.md): once the enricher has this many raw events published
   * but not yet handled, ingest answers 503 with Retry-After instead of taking more, until the
   * backlog is under the bound again (read every SPOOR_LAG_SAMPLE_MS). 0: never.
   */
  SPOOR_INGEST_MAX_LAG: count(1_000_000, 0, 1_000_000_000),
  /**
   * SIGTERM (issue 16, docs/reliability.md): requests under way get this long to finish before their
   * connections are cut; the consumers then finish their batches and commit, and the bus is
   * flushed. The whole stop is bounded by this plus 20 s, after which the process exits 1.
   */
  SPOOR_SHUTDOWN_GRACE_MS: millis(10_000, 0, 600_000),
  /** How long a job's claim outlives a worker that stopped renewing it (a killed one). */
  SPOOR_JOB_LEASE_MS: millis(15_000, 1000, 600_000),
  // Rate limits (docs/security.md); 0 turns one off. Events per second for ingest, per hour for
  // signups, per minute for triggers and rule tests; failed logins before the back-off starts.
  SPOOR_RATE_INGEST_PROJECT: count(10_000, 0, 100_000_000),
  SPOOR_RATE_INGEST_IP: count(2_000, 0, 100_000_000),
  SPOOR_RATE_SIGNUP_IP: count(10, 0, 1_000_000),
  SPOOR_RATE_LOGIN_FAILURES: count(5, 0, 1_000),
  SPOOR_RATE_TRIGGERS: count(60, 0, 1_000_000),
  SPOOR_RATE_RULES_TEST: count(30, 0, 1_000_000),
  // Share links (issue 45): public calls per minute, password attempts per hour, per client address.
  SPOOR_RATE_SHARED: count(600, 0, 1_000_000),
  SPOOR_RATE_SHARE_UNLOCK: count(10, 0, 1_000_000),
  // Caps on notification channels, so Spoor cannot be used as a mail relay (docs/security.md).
  SPOOR_MAX_CHANNELS: count(10, 1, 10_000),
  SPOOR_MAX_RECIPIENTS_PER_CHANNEL: count(10, 1, 1_000),
  SPOOR_MAX_RECIPIENTS_PER_PROJECT: count(25, 1, 10_000),
  // Caps on an account's exports (issue 42, docs/data.md "Export"); 0 turns one off. Exports
  // queued or running at once, and bytes held in export files not yet expired.
  SPOOR_EXPORT_MAX_ACTIVE: count(3, 0, 10_000),
  SPOOR_EXPORT_MAX_BYTES: count(1024 ** 3, 0, 2 ** 50),
  // Caps on open GET /v1/live streams of one gateway process (issue 42, docs/security.md): per
  // account, and in all. Each holds a connection and ~25–30 KiB of the process' memory (bench/live).
  SPOOR_LIVE_STREAMS_PER_ACCOUNT: count(50, 1, 100_000),
  SPOOR_LIVE_STREAMS_MAX: count(2_000, 1, 100_000),
  SPOOR_LOG_LEVEL: optionalText
    .pipe(z.enum(['debug', 'info', 'warn', 'error', 'silent']).optional())
    .transform((v) => v ?? 'info'),
  /**
   * Test-only: ingest answers 200 before the bus acknowledged, buffering writes behind a timer.
   * Exists so the crash test can prove it detects lost acknowledged events. Never set it in production.
   */
  SPOOR_UNSAFE_ACK_BEFORE_WRITE: boolFlag,
});
