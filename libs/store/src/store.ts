import type {
  AccountRecord,
  JobRecord,
  RuleRecord,
  SessionClassification,
  ApiKeyRecord,
  SessionTag,
  SigningKeyRecord,
  RevokedToken,
  ActionSeen,
  EnrichedEvent,
  ProjectRecord,
  ProjectSettings,
  RawEvent,
  SessionListItem,
  SessionState,
} from '@spoor/schemas';
import type { DataExpiry, ExportRepository, ProjectErasure } from './data-ownership.js';
import type { FunnelRepository, RetentionRepository } from './funnel-query.js';
import type { LiveRepository } from './live-query.js';
import type { StatsRepository } from './stats-query.js';
import type { MemberRepository } from './members.js';
import type { AuditRepository } from './audit.js';

/** A time range, end exclusive (DESIGN.md, HTTP conventions). Both ends optional. */
export interface TimeWindow {
  window_start?: number | undefined;
  window_end?: number | undefined;
}
export interface ListQuery extends TimeWindow {
  limit: number;
}

export interface ProjectRepository {
  /**
   * Inserts a project and makes its account_id its owner (issue 45); throws StoreConflictError
   * when (origin, project) is taken. `account_id` stays the account that registered it.
   */
  create(p: ProjectRecord): Promise<void>;
  find(origin: string, project: string): Promise<ProjectRecord | null>;
  findByName(project: string): Promise<ProjectRecord[]>;
  get(projectId: string): Promise<ProjectRecord | null>;
  listByAccount(accountId: string): Promise<ProjectRecord[]>;
  setVerified(projectId: string, verified: boolean): Promise<void>;
  /** Changes the given settings (a field left out is kept); answers the updated record, or null for an unknown project. */
  updateSettings(projectId: string, settings: ProjectSettings): Promise<ProjectRecord | null>;
  /** Every project with retention_days set (the worker's daily retention pass), by project_id. */
  listWithRetention(): Promise<ProjectRecord[]>;
}

/** One event as received and as enriched (same project_id and event_id). */
export interface EventPair {
  raw: RawEvent;
  enriched: EnrichedEvent;
}

export interface EventRepository {
  /**
   * Idempotent: a (project_id, event_id) already stored is left as it is (the first write wins,
   * also inside one batch). The raw and the enriched event of one (project_id, event_id) agree on
   * every field but ip, url and referrer, which enrichment rewrites: DuckDB keeps both in one row
   * (issue 14), so a half written later keeps the shared fields of the first.
   */
  insertRaw(events: RawEvent[]): Promise<void>;
  /** Idempotent like insertRaw. */
  insertEnriched(events: EnrichedEvent[]): Promise<void>;
  /**
   * The raw and the enriched row of each event, as the enricher writes them: one write where the
   * engine allows it (DuckDB: one row per event appended in one transaction). Idempotent like the two above.
   */
  insertEvents(events: EventPair[]): Promise<void>;
  /** Oldest first by timestamp, then event_id; window on timestamp, end exclusive. */
  listRaw(projectId: string, q: ListQuery): Promise<RawEvent[]>;
  listEnriched(projectId: string, q: ListQuery): Promise<EnrichedEvent[]>;
  /**
   * Every enriched event of one session, oldest first. `within` — the session's first and last
   * event time from its summary, both inclusive — lets an engine skip the blocks of other times
   * (DuckDB's zone maps: events are stored in about the order they arrive; issue 15); events
   * outside it are not returned.
   */
  sessionEvents(projectId: string, sessionId: string, within?: { from: number; to: number }): Promise<EnrichedEvent[]>;
  /** Every enriched event of these sessions, oldest first (then event_id); for backfills. */
  eventsOfSessions(projectId: string, sessionIds: string[]): Promise<EnrichedEvent[]>;
  countRaw(projectId: string): Promise<number>;
  countEnriched(projectId: string): Promise<number>;
  /** Records that actions were seen; keeps the greatest last_seen per (project, action). */
  touchActions(items: Array<{ project_id: string; action: string; last_seen: number }>): Promise<void>;
  /** Most recently seen first, then by action. */
  listActions(projectId: string): Promise<ActionSeen[]>;
}

export interface SessionSpan {
  first_event_at: number;
  last_event_at: number;
}

export interface SessionRepository {
  /**
   * Inserts or replaces whole session states, keyed by (project_id, session_id). A state whose
   * updated_at is older than the stored one is ignored (ClickHouse's ReplacingMergeTree(updated_at)
   * rule, applied by every backend); on a tie the later write wins.
   */
  upsert(sessions: SessionState[]): Promise<void>;
  get(projectId: string, sessionId: string): Promise<SessionState | null>;
  /**
   * The stored session's time range, null when there is none: what a read of its events needs,
   * without the summary's other ~30 columns (each costs both engines a fixed share of a point read).
   */
  span(projectId: string, sessionId: string): Promise<SessionSpan | null>;
  /** The stored ones among sessionIds, ordered by session_id. */
  getMany(projectId: string, sessionIds: string[]): Promise<SessionState[]>;
  /** Newest first by last_event_at, then session_id; window filters on last_event_at. */
  list(projectId: string, q: ListQuery): Promise<SessionListItem[]>;
  /**
   * Whole states in session_id order, the first `limit` after `afterSessionId` (exclusive; null
   * starts at the beginning): the backfill's cursor over every session of a project.
   */
  page(projectId: string, afterSessionId: string | null, limit: number): Promise<SessionState[]>;
  /** How many sessions the project has. */
  count(projectId: string): Promise<number>;
}

export interface AccountRepository {
  /** Throws StoreConflictError when the email (built-in issuer) or (issuer, subject) is taken. */
  create(a: AccountRecord): Promise<void>;
  get(accountId: string): Promise<AccountRecord | null>;
  /** Built-in issuer accounts only; emails compare lowercased. */
  findByEmail(email: string): Promise<AccountRecord | null>;
  findBySubject(issuer: string, subject: string): Promise<AccountRecord | null>;
  /** The account created first (created_at, then account_id), or null on an install without one (issue 45). */
  oldest(): Promise<AccountRecord | null>;
}

export interface ApiKeyRepository {
  /** Throws StoreConflictError when the account has a live key of that name. */
  create(k: ApiKeyRecord): Promise<void>;
  /** Live (not revoked) keys of an account, oldest first. */
  list(accountId: string): Promise<ApiKeyRecord[]>;
  /** The live key with this hash, or null (revoked keys are refused at once). */
  findByHash(keyHash: string): Promise<ApiKeyRecord | null>;
  /** Revokes the live key of that name; false when there is none. */
  revoke(accountId: string, apiKeyName: string, at: number): Promise<boolean>;
}

export interface TokenRevocationRepository {
  /** Records a revoked ID token; idempotent (a second revocation of one token keeps either row). */
  revoke(t: RevokedToken): Promise<void>;
  /**
   * Whether the token was revoked. A revocation lapses once `now` passes its expires_at (the
   * token is refused as expired by then), so backends may forget it.
   */
  isRevoked(tokenId: string, now: number): Promise<boolean>;
}

export interface SigningKeyRepository {
  /** Oldest first. */
  list(): Promise<SigningKeyRecord[]>;
  /** Idempotent by kid. */
  create(k: SigningKeyRecord): Promise<void>;
}

export interface TagRepository {
  /**
   * Records tag facts. Per (project, session, tag, source) the write with the greatest
   * changed_at wins (on a tie the later write); a fact with `removed: true` takes the tag back
   * from that source. Idempotent.
   */
  add(tags: SessionTag[]): Promise<void>;
  /**
   * Distinct standing tags of a project with the last time each was applied (the greatest
   * tagged_at over its standing facts), most recent first, then by tag.
   */
  list(projectId: string): Promise<Array<{ tag: string; last_seen: number }>>;
  /** Standing tags of one session, most recent first, then by tag. */
  ofSession(projectId: string, sessionId: string): Promise<Array<{ tag: string; last_seen: number }>>;
  /** ofSession for many sessions in one read: by session_id, then as ofSession orders them. */
  ofSessions(
    projectId: string,
    sessionIds: string[],
  ): Promise<Array<{ session_id: string; tag: string; last_seen: number }>>;
  /**
   * Sessions carrying `tag`, newest first (then session_id); tagged_at of a session is the
   * greatest over its standing facts for that tag, and the window filters on it.
   */
  sessions(projectId: string, tag: string, q: ListQuery): Promise<Array<{ session_id: string; tagged_at: number }>>;
}

export interface RuleRepository {
  /**
   * Writes one version of a rule. Throws StoreConflictError when (project, rule_id, version)
   * already exists: two concurrent saves cannot both become version n.
   */
  put(rule: RuleRecord): Promise<void>;
  /** The latest version of a rule, or null. */
  get(projectId: string, ruleId: string): Promise<RuleRecord | null>;
  /** The latest version of every rule of the project (enabled or not), by rule_id. */
  list(projectId: string): Promise<RuleRecord[]>;
  /** Every version of one rule, oldest first. */
  versions(projectId: string, ruleId: string): Promise<RuleRecord[]>;
}

export interface ClassificationRepository {
  /** Per (project, session) the greatest classified_at wins (on a tie the later write). */
  put(items: SessionClassification[]): Promise<void>;
  get(projectId: string, sessionId: string): Promise<SessionClassification | null>;
  /** The stored ones among sessionIds, by session_id. */
  getMany(projectId: string, sessionIds: string[]): Promise<SessionClassification[]>;
}

export interface JobRepository {
  /** Per job_id the greatest updated_at wins (on a tie the later write). */
  put(job: JobRecord): Promise<void>;
  get(jobId: string): Promise<JobRecord | null>;
  /** Jobs of an account, newest created first. */
  listByAccount(accountId: string, limit: number): Promise<JobRecord[]>;
}

/** A closed window, start inclusive, end exclusive, both required (aggregation jobs). */
export interface Window {
  start: number;
  end: number;
}

/** What an aggregation reads for one project and window (DESIGN.md, Jobs); bots left out. */
export interface WindowAggregates {
  /** Events whose timestamp falls in the window. */
  events: number;
  /** Distinct (ip, user agent) pairs among those events. */
  visitors: number;
  /** Every action of the window with its event count, most first. */
  actions: Array<{ name: string; count: number }>;
  /** Page views (PAGE_VIEW_ACTIONS) per path, top N. */
  pages: Array<{ name: string; count: number }>;
  /** Sessions whose last_event_at falls in the window. */
  sessions: number;
  /** Of those, with one page view or fewer. */
  bounces: number;
  duration_ms: { p50: number; p90: number; p99: number };
  /** Top N of the window's sessions per referrer host, utm_source, country, browser, device type, standing tag. */
  referrers: Array<{ name: string; count: number }>;
  utm_sources: Array<{ name: string; count: number }>;
  countries: Array<{ name: string; count: number }>;
  browsers: Array<{ name: string; count: number }>;
  devices: Array<{ name: string; count: number }>;
  tags: Array<{ name: string; count: number }>;
}

export interface WindowOverview extends WindowAggregates {
  /** What `series` gives for the same window and bucket. */
  series: SeriesBucket[];
}

export interface TransitionCounts {
  /** Sessions with at least one event in the window. */
  sessions: number;
  /** (from, to) pairs within sessions, '$start' before a first event and '$end' after a last one. */
  cells: Array<{ from: string; to: string; count: number }>;
}

/** One bucket of a window's time series; buckets without events or sessions are left out. */
export interface SeriesBucket {
  /** The bucket's start: window start + k × bucketMs. */
  start: number;
  events: number;
  /** Distinct (ip, user agent) pairs among the bucket's events. */
  visitors: number;
  /** Sessions whose last event falls in the bucket. */
  sessions: number;
}

/** Read-only analytics over events and sessions, in each engine's own SQL. */
export interface AnalyticsRepository {
  aggregate(projectId: string, window: Window, topN: number): Promise<WindowAggregates>;
  /** Events, visitors and sessions per bucket of `bucketMs` from the window's start, bots left out; ascending. */
  series(projectId: string, window: Window, bucketMs: number): Promise<SeriesBucket[]>;
  /**
   * `aggregate` and `series` of one window in one call, exactly what the two give: an engine may
   * share its scans between them (ClickHouse counts the sessions per bucket in the headline's scan).
   */
  overview(projectId: string, window: Window, topN: number, bucketMs: number): Promise<WindowOverview>;
  /** Events of a session in the window, ordered by timestamp then event_id. */
  transitions(projectId: string, window: Window): Promise<TransitionCounts>;
  /** Sessions carrying `tag` (standing) whose tagged_at is at or after `since`. */
  countTagged(projectId: string, tag: string, since: number): Promise<number>;
}

/**
 * Small documents of configuration and results (channels, webhooks, deliveries, schedules,
 * alerts, overviews, transition matrices, health snapshots), one table for all: each kind is a
 * handful to thousands of rows read by key or by project, never scanned for analytics.
 */
export interface StoredRecord<T = Record<string, unknown>> {
  kind: string;
  /** '' for records that belong to no project (health snapshots). */
  project_id: string;
  id: string;
  /** A second key to list by (a delivery's webhook), or ''. */
  parent_id: string;
  /** Lists order by it, greatest first (a window end, a creation time). */
  sort_key: number;
  data: T;
  /** Per (kind, project_id, id) the greatest updated_at wins (on a tie the later write). */
  updated_at: number;
  /** A deleted record is kept as a tombstone and never listed or got. */
  deleted: boolean;
}

export interface RecordQuery {
  parent_id?: string;
  /** Only records with sort_key >= from, < to. */
  from?: number;
  to?: number;
  limit: number;
}

export interface RecordRepository {
  put<T>(records: Array<StoredRecord<T>>): Promise<void>;
  get<T>(kind: string, projectId: string, id: string): Promise<StoredRecord<T> | null>;
  /** Live records of a kind in a project, greatest sort_key first, then id. */
  list<T>(kind: string, projectId: string, q: RecordQuery): Promise<Array<StoredRecord<T>>>;
  /** Live records of a kind over every project (the scheduler's view), by project then id. */
  listAll<T>(kind: string, limit: number): Promise<Array<StoredRecord<T>>>;
  /** Removes records of a kind (every project) with sort_key < before: bounded retention. */
  purge(kind: string, before: number): Promise<void>;
}

export interface Store {
  readonly kind: 'duckdb' | 'clickhouse';
  /** Applies pending schema migrations; safe to call from several processes at once. */
  migrate(): Promise<void>;
  readonly projects: ProjectRepository;
  readonly events: EventRepository;
  readonly sessions: SessionRepository;
  readonly accounts: AccountRepository;
  /** Members and invitations of each project (issue 45). */
  readonly members: MemberRepository;
  /** The audit trail of each project (issue 45, item 7; docs/security.md, Audit trail). */
  readonly audit: AuditRepository;
  readonly apiKeys: ApiKeyRepository;
  readonly signingKeys: SigningKeyRepository;
  readonly revokedTokens: TokenRevocationRepository;
  readonly tags: TagRepository;
  readonly rules: RuleRepository;
  readonly classifications: ClassificationRepository;
  readonly jobs: JobRepository;
  readonly analytics: AnalyticsRepository;
  readonly records: RecordRepository;
  /** Funnels over the enriched events, in the engine's SQL (issue 18, docs/analytics.md). */
  readonly funnels: FunnelRepository;
  /** Retention cohorts of visitors (issue 18). */
  readonly retention: RetentionRepository;
  /** The live view's snapshot of the last minutes (issue 18). */
  readonly live: LiveRepository;
  /** The stats query: metrics by dimensions over a range (issue 44, docs/analytics.md). */
  readonly stats: StatsRepository;
  /** Export files written by the engine's own writer (issue 17, docs/data.md). */
  readonly exports: ExportRepository;
  /** Deletion of a project and everything it holds (issue 17). */
  readonly erasure: ProjectErasure;
  /** Deletion of a project's events and sessions past its retention_days (issue 17). */
  readonly expiry: DataExpiry;
  /** Bytes the store takes on disk (DuckDB: the database file and its WAL; ClickHouse: active parts of the database). */
  sizeBytes(): Promise<number>;
  /**
   * Memory this process' engine holds for the store, by DuckDB's tags (`duckdb_memory()`:
   * `ART_INDEX` is the tables' primary keys, which stay in memory; the events' covers only the
   * latest events, `event_keys`; issue 14).
   * Empty for ClickHouse, whose memory is its own server's.
   */
  memoryBytes(): Promise<Record<string, number>>;
  close(): Promise<void>;
}

export class StoreConflictError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StoreConflictError';
  }
}
