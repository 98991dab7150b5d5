import type { z } from 'zod';
import { ConfigSchema, type ServiceName } from './config-schema.js';
import { ConfigError } from './config-error.js';
import { readConnectionSecurity, type ConnectionSecurity } from './connection-security.js';

export { ConfigError, redactConfigValue } from './config-error.js';

type Parsed = z.output<typeof ConfigSchema>;

/**
 * The validated configuration every service receives; nothing else reads process.env. TLS and
 * SASL of the engines' connections (issue 46) come from ConnectionSecurity.
 */
export interface Config extends ConnectionSecurity {
  services: ServiceName[];
  port: number;
  host: string;
  dataDir: string;
  kafkaBrokers: string[] | null;
  clickhouseUrl: string | null;
  clickhouseDatabase: string;
  redisUrl: string | null;
  duckdbMemory: string;
  /** SPOOR_DUCKDB_KEY_WINDOW: the latest events whose repeats the embedded store recognises. */
  duckdbKeyWindow: number;
  /** SPOOR_DUCKDB_THREADS: DuckDB's threads outside scans of many rows. */
  duckdbThreads: number;
  topicPrefix: string;
  /** SPOOR_KAFKA_PARTITIONS: partitions of each topic Spoor creates. */
  kafkaPartitions: number;
  /** SPOOR_KAFKA_REPLICATION_FACTOR: replicas of each topic Spoor creates; null: the broker's default. */
  kafkaReplicationFactor: number | null;
  /** SPOOR_HEALTH_HTTP: listen for /healthz, /livez and /metrics even when no service serves routes. */
  healthHttp: boolean;
  /** SPOOR_HANDOFF: co-located pipeline stages call each other (`local`) or go through the topics (`bus`). */
  handoff: 'local' | 'bus';
  /** SPOOR_PIPELINE_THREAD: an all-in-one process runs its consumers on a worker thread (`thread`) or on the HTTP thread (`main`). */
  pipelineThread: 'thread' | 'main';
  /** SPOOR_BUS_FSYNC: when the embedded log reaches the disk (`always` before each 200, `interval`, `never`). */
  busFsync: 'always' | 'interval' | 'never';
  /** SPOOR_BUS_FSYNC_INTERVAL_MS: `interval`'s period. */
  busFsyncIntervalMs: number;
  /** SPOOR_BUS_RETENTION_HOURS, in ms: how long raw events stay on the bus (log or topics) at most. */
  busRetentionMs: number;
  /** SPOOR_PIPELINE_LINGER_MS: how long a consumer gathers events into one batch (issue 41). */
  pipelineLingerMs: number;
  /** SPOOR_PIPELINE_BATCH: the most events in one consumer batch (issue 41). */
  pipelineBatch: number;
  /** SPOOR_HEAP_GROWING_PERCENT: V8's heap growing factor, 1 + this / 100; 0: V8's own. */
  heapGrowingPercent: number;
  trustProxy: boolean | number | string[];
  geoipDb: string | null;
  ipMode: 'full' | 'truncate' | 'hash';
  ipSalt: string | null;
  oidcIssuer: string | null;
  oidcAudience: string | null;
  /** SPOOR_ADMIN_EMAILS, lowercased; [] when unset. */
  adminEmails: string[];
  smtpUrl: string | null;
  smtpFrom: string;
  webhookAllowPrivate: boolean;
  workerTickMs: number;
  webhookRetryBaseMs: number;
  heartbeatMs: number;
  /** How often each process reads its consumers' lag for /healthz (LagSampler). */
  lagSampleMs: number;
  /** SPOOR_GATEWAY_CACHE_MS: the gateway's account and project cache lifetime; 0 off. */
  gatewayCacheMs: number;
  healthSnapshotMs: number;
  dnsServer: string | null;
  publicUrl: string | null;
  logLevel: 'debug' | 'info' | 'warn' | 'error' | 'silent';
  jobLeaseMs: number;
  /** SPOOR_SHUTDOWN_GRACE_MS: how long requests under way may take to finish after a SIGTERM. */
  shutdownGraceMs: number;
  /** SPOOR_INGEST_MAX_LAG: raw events behind the enricher at which ingest answers 503 (0: never). */
  ingestMaxLag: number;
  /** SPOOR_INGEST_PUBLISH_TIMEOUT_MS: ingest's wait for the bus before a 503 (docs/reliability.md). */
  ingestPublishTimeoutMs: number;
  unsafeAckBeforeWrite: boolean;
  rateLimits: RateLimitConfig;
  channelCaps: ChannelCaps;
  /** Open GET /v1/live streams of this process: per account, and in all. */
  liveStreams: { perAccount: number; perProcess: number };
  exportCaps: ExportCaps;
}

/** Per account: exports queued or running at once, and bytes held in unexpired export files (0: no cap). */
export interface ExportCaps {
  maxActive: number;
  maxBytes: number;
}

/** How many notification channels a project may have, and email addresses per channel and per project. */
export interface ChannelCaps {
  channelsPerProject: number;
  recipientsPerChannel: number;
  recipientsPerProject: number;
}

/** Rate limits (docs/security.md); 0 turns one off. */
export interface RateLimitConfig {
  /** Events per second into one project, from every sender together. */
  ingestPerProject: number;
  /** Events per second from one client address (an IPv6 /64). */
  ingestPerIp: number;
  /** Accounts created per hour from one client address. */
  signupsPerIpHour: number;
  /** Failed logins in an hour (per account and address; 4× that per address, 20× per account) before each further one waits twice as long. */
  loginFailures: number;
  /** Jobs triggered per minute by one account. */
  triggersPerMinute: number;
  /** POST /v1/rules/test calls per minute by one account. */
  ruleTestsPerMinute: number;
  /** Calls of the public share-link operations per minute from one client address (issue 45). */
  sharedPerIpMinute: number;
  /** Password attempts on share links per hour from one client address. */
  shareUnlocksPerIpHour: number;
}

function toConfig(p: Parsed): Omit<Config, keyof ConnectionSecurity> {
  return {
    services: p.SPOOR_SERVICES,
    port: p.SPOOR_PORT,
    host: p.SPOOR_HOST,
    dataDir: p.SPOOR_DATA_DIR,
    kafkaBrokers: p.SPOOR_KAFKA_BROKERS?.split(',').map((b) => b.trim()) ?? null,
    clickhouseUrl: p.SPOOR_CLICKHOUSE_URL ?? null,
    clickhouseDatabase: p.SPOOR_CLICKHOUSE_DATABASE,
    redisUrl: p.SPOOR_REDIS_URL ?? null,
    duckdbMemory: p.SPOOR_DUCKDB_MEMORY,
    duckdbKeyWindow: p.SPOOR_DUCKDB_KEY_WINDOW,
    duckdbThreads: p.SPOOR_DUCKDB_THREADS,
    topicPrefix: p.SPOOR_TOPIC_PREFIX,
    kafkaPartitions: p.SPOOR_KAFKA_PARTITIONS,
    kafkaReplicationFactor: p.SPOOR_KAFKA_REPLICATION_FACTOR === 0 ? null : p.SPOOR_KAFKA_REPLICATION_FACTOR,
    healthHttp: p.SPOOR_HEALTH_HTTP,
    handoff: p.SPOOR_HANDOFF,
    pipelineThread: p.SPOOR_PIPELINE_THREAD,
    busFsync: p.SPOOR_BUS_FSYNC,
    busFsyncIntervalMs: p.SPOOR_BUS_FSYNC_INTERVAL_MS,
    busRetentionMs: p.SPOOR_BUS_RETENTION_HOURS * 3_600_000,
    pipelineLingerMs: p.SPOOR_PIPELINE_LINGER_MS,
    pipelineBatch: p.SPOOR_PIPELINE_BATCH,
    heapGrowingPercent: p.SPOOR_HEAP_GROWING_PERCENT,
    trustProxy: p.SPOOR_TRUST_PROXY,
    geoipDb: p.SPOOR_GEOIP_DB ?? null,
    ipMode: p.SPOOR_IP_MODE,
    ipSalt: p.SPOOR_IP_SALT ?? null,
    oidcIssuer: p.SPOOR_OIDC_ISSUER ?? null,
    oidcAudience: p.SPOOR_OIDC_AUDIENCE ?? null,
    adminEmails: p.SPOOR_ADMIN_EMAILS,
    smtpUrl: p.SPOOR_SMTP_URL ?? null,
    smtpFrom: p.SPOOR_SMTP_FROM,
    webhookAllowPrivate: p.SPOOR_WEBHOOK_ALLOW_PRIVATE,
    workerTickMs: p.SPOOR_WORKER_TICK_MS,
    webhookRetryBaseMs: p.SPOOR_WEBHOOK_RETRY_BASE_MS,
    heartbeatMs: p.SPOOR_HEARTBEAT_MS,
    lagSampleMs: p.SPOOR_LAG_SAMPLE_MS || (p.SPOOR_KAFKA_BROKERS ? 5_000 : 1_000),
    gatewayCacheMs: p.SPOOR_GATEWAY_CACHE_MS,
    healthSnapshotMs: p.SPOOR_HEALTH_SNAPSHOT_MS,
    dnsServer: p.SPOOR_DNS_SERVER ?? null,
    publicUrl: p.SPOOR_PUBLIC_URL ?? null,
    logLevel: p.SPOOR_LOG_LEVEL,
    jobLeaseMs: p.SPOOR_JOB_LEASE_MS,
    ingestPublishTimeoutMs: p.SPOOR_INGEST_PUBLISH_TIMEOUT_MS,
    ingestMaxLag: p.SPOOR_INGEST_MAX_LAG,
    shutdownGraceMs: p.SPOOR_SHUTDOWN_GRACE_MS,
    unsafeAckBeforeWrite: p.SPOOR_UNSAFE_ACK_BEFORE_WRITE,
    channelCaps: {
      channelsPerProject: p.SPOOR_MAX_CHANNELS,
      recipientsPerChannel: p.SPOOR_MAX_RECIPIENTS_PER_CHANNEL,
      recipientsPerProject: p.SPOOR_MAX_RECIPIENTS_PER_PROJECT,
    },
    exportCaps: { maxActive: p.SPOOR_EXPORT_MAX_ACTIVE, maxBytes: p.SPOOR_EXPORT_MAX_BYTES },
    liveStreams: { perAccount: p.SPOOR_LIVE_STREAMS_PER_ACCOUNT, perProcess: p.SPOOR_LIVE_STREAMS_MAX },
    rateLimits: {
      ingestPerProject: p.SPOOR_RATE_INGEST_PROJECT,
      ingestPerIp: p.SPOOR_RATE_INGEST_IP,
      signupsPerIpHour: p.SPOOR_RATE_SIGNUP_IP,
      loginFailures: p.SPOOR_RATE_LOGIN_FAILURES,
      triggersPerMinute: p.SPOOR_RATE_TRIGGERS,
      ruleTestsPerMinute: p.SPOOR_RATE_RULES_TEST,
      sharedPerIpMinute: p.SPOOR_RATE_SHARED,
      shareUnlocksPerIpHour: p.SPOOR_RATE_SHARE_UNLOCK,
    },
  };
}

/**
 * Reads the environment once and validates it. A bad value throws ConfigError naming the
 * variable, so start-up stops with a message that says what to fix.
 */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const result = ConfigSchema.safeParse(env);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    const variable = String(issue.path[0] ?? 'environment');
    throw new ConfigError(variable, issue.message, env[variable]);
  }
  return { ...toConfig(result.data), ...readConnectionSecurity(result.data, env) };
}
