// ClickHouse schema, one numbered step at a time, for a database name `db` that has passed
// checkIdentifier(). Every statement is idempotent (IF NOT EXISTS) so that a step can be
// re-run after a crash or by two processes at once; never edit a released step.
//
// Keys and why:
// - Events: ReplacingMergeTree ORDER BY (project_id, event_id). The sorting key is the dedup
//   key, and it cannot hold the timestamp or session: a retried event can carry another
//   corrected timestamp (its sent_at changed) and a re-derived session id, and must still
//   collapse into one row. `_version` = (year 2100 − insert time) in µs, stamped by the server,
//   makes the *earliest* insert survive, so a stored event "is left as it is" (store.ts).
//   Reads use FINAL. Read paths: sessionEvents goes through enriched_events_by_session, an
//   index table (ORDER BY project_id, session_id, timestamp, event_id) fed by a materialized
//   view; its event ids then hit the primary key of enriched_events, and the outer query
//   re-checks session_id after FINAL, so a stale index entry never leaks a row. Time windows
//   (listRaw/listEnriched) scan the project's key range under FINAL; the minmax index on
//   `timestamp` prunes that for queries without FINAL (aggregations) and for FINAL where the
//   server enables use_skip_indexes_if_final. No time partitioning: ReplacingMergeTree only
//   collapses duplicates inside one partition.
// - sessions: ReplacingMergeTree(updated_at) ORDER BY (project_id, session_id): the newest
//   state wins. No skip index on last_event_at: it changes between versions of a row, and a
//   skip index applied before FINAL could surface a stale version. From step 9 two projections
//   serve the page by last activity, and sessions are deleted by mutations (see step 9).
// - actions: ReplacingMergeTree(last_seen) ORDER BY (project_id, action): max last_seen wins.
// - projects: ReplacingMergeTree(version) ORDER BY (origin, project). A new row gets a
//   server-stamped, decreasing version (first insert wins, which is what create() relies on);
//   setVerified writes the surviving row again with version + 1. The table is small, so the
//   lookups by project_id and account_id are plain scans.
// - accounts: ReplacingMergeTree(version) ORDER BY (issuer, subject), first insert wins, so a
//   pair is unique the way a project is; findBySubject (every OIDC-authenticated request) is a
//   key lookup, get(account_id) a scan of a small table. account_emails ORDER BY email, same
//   versioning, is the claim on a built-in account's lowercased email: create() claims the
//   email before it writes the account (account-repository.ts has the race analysis).
// - api_keys: ReplacingMergeTree(version) ORDER BY (account_id, api_key_name, generation). A
//   name's keys are numbered 0, 1, 2… by generation; creating one claims the next generation
//   after a revoked one (first insert wins, so of two racers one survives) and revoke writes
//   the live row again with version + 1. So a name has at most one live key, a revoked name
//   can be reused, and list() reads the account's key range. findByHash runs on every API-key
//   request: api_keys_by_hash (ORDER BY key_hash, fed by a materialized view) turns the hash
//   into the row's key, then the primary key of api_keys finds the row and the outer query
//   re-checks key_hash and revoked_at after FINAL, so an index entry left by a losing create
//   or by a revoked key never authenticates.
// - signing_keys: ReplacingMergeTree(version) ORDER BY kid, first insert wins.
// - session_tags (step 2, dropped by step 3): ReplacingMergeTree(tagged_at) ORDER BY
//   (project_id, tag, session_id), one row per tagged session.
// - session_tag_facts (step 3): ReplacingMergeTree(changed_at) ORDER BY (project_id, tag,
//   session_id, source): one fact per source, the greatest changed_at wins, on a tie the last
//   insert (what a merge keeps, and what reads pick with FINAL; tag-repository.ts). `_written`,
//   the server's insert time in µs, served reads that picked that row with argMax before issue
//   15's ninth round. `tag` before `session_id` serves GET /v1/tags/{tag}; a
//   project has few distinct tags, so ofSession's session_id condition still prunes within
//   each tag's range.
// - rules: ReplacingMergeTree(_version) ORDER BY (project_id, rule_id, version), first insert
//   wins like projects, so of two puts of one version one survives; `write_id` (random per
//   put, table-only) is how put() recognises its own row when it reads the survivor back.
//   get, list and versions read one project's (or rule's) key range under FINAL.
// - session_classifications: ReplacingMergeTree(classified_at) ORDER BY (project_id,
//   session_id), newest verdict wins; reads use FINAL.
// - records (step 4): ReplacingMergeTree(updated_at) ORDER BY (kind, project_id, id); small
//   documents read by key or by project with FINAL (store.ts, RecordRepository).
// - api_keys.scope (step 5): `full` for keys made before scopes existed.
// - revoked_tokens (step 5): ReplacingMergeTree ORDER BY token_id, so isRevoked (every request
//   with an ID token) is a key lookup; any row answers it, so no FINAL. A TTL drops a row an
//   hour after the token's own expiry, when it could no longer be accepted anyway.
// - jobs: ReplacingMergeTree(updated_at) ORDER BY job_id, newest record wins; get is a key
//   lookup, listByAccount a scan of a small table (jobs are started by people), both FINAL.
// Timestamps are Int64 (UInt64 for version columns) integer ms, the API's unit;
// `fromUnixTimestamp64Milli(timestamp)` gives a DateTime64 for analytics. payload, attributes
// and classification are String JSON; query and actions are Map, tags and seen Array(String).
// From step 3: rule logic and value, a classification's tags and a job's request, progress and
// result are String JSON; a rule's tags and a classification's rule_ids and labels Array(String).
import { rollupMigration, rollupOffsetsMigration } from './rollups.js';

export interface ClickHouseMigration {
  version: number;
  name: string;
  statements: (db: string) => string[];
}

const SESSIONS_BY_ACTIVITY = 'sessions_by_activity';
const SESSION_ACTIVITY_HOURS = 'session_activity_hours';

/** µs before 2100-01-01: decreasing with insert time, below 2^53 so JS numbers stay exact. */
const FIRST_INSERT_WINS = 'toUInt64(4102444800000000 - toUnixTimestamp64Micro(now64(6)))';
/** The insert time in µs: increasing, so the greatest is the last write. */
const INSERT_TIME = 'toUInt64(toUnixTimestamp64Micro(now64(6)))';

const EVENT_COLUMNS = `
  project_id       String,
  event_id         String,
  project          LowCardinality(String),
  origin           LowCardinality(String),
  action           LowCardinality(String),
  timestamp        Int64,
  client_timestamp Int64,
  sent_at          Nullable(Int64),
  received_at      Int64,
  payload          String,
  session_id       Nullable(String),
  url              Nullable(String),
  referrer         Nullable(String),
  ip               String,
  user_agent       String`;

const UTM_CLIENT_GEO = `
  utm_source      Nullable(String),
  utm_medium      Nullable(String),
  utm_campaign    Nullable(String),
  utm_term        Nullable(String),
  utm_content     Nullable(String),
  browser_name    LowCardinality(Nullable(String)),
  browser_version Nullable(String),
  os_name         LowCardinality(Nullable(String)),
  os_version      Nullable(String),
  device_type     LowCardinality(Nullable(String)),
  device_vendor   Nullable(String),
  device_model    Nullable(String),
  geo_country     LowCardinality(Nullable(String)),
  geo_region      Nullable(String),
  geo_city        Nullable(String),
  geo_latitude    Nullable(Float64),
  geo_longitude   Nullable(Float64)`;

export const clickhouseMigrations: readonly ClickHouseMigration[] = [
  {
    version: 1,
    name: 'projects, events, sessions, actions',
    statements: (db) => [
      `CREATE TABLE IF NOT EXISTS ${db}.projects (
        project_id         String,
        origin             String,
        project            String,
        account_id         String,
        verified           Bool,
        verification_token String,
        created_at         Int64,
        version            UInt64 DEFAULT ${FIRST_INSERT_WINS}
      ) ENGINE = ReplacingMergeTree(version) ORDER BY (origin, project)`,
      `CREATE TABLE IF NOT EXISTS ${db}.raw_events (${EVENT_COLUMNS},
        _version UInt64 MATERIALIZED ${FIRST_INSERT_WINS},
        INDEX timestamp_minmax timestamp TYPE minmax GRANULARITY 1
      ) ENGINE = ReplacingMergeTree(_version) ORDER BY (project_id, event_id)`,
      `CREATE TABLE IF NOT EXISTS ${db}.enriched_events (${EVENT_COLUMNS},
        ${UTM_CLIENT_GEO},
        bot   Bool,
        path  Nullable(String),
        query Map(String, String),
        _version UInt64 MATERIALIZED ${FIRST_INSERT_WINS},
        INDEX timestamp_minmax timestamp TYPE minmax GRANULARITY 1
      ) ENGINE = ReplacingMergeTree(_version) ORDER BY (project_id, event_id)`,
      `CREATE TABLE IF NOT EXISTS ${db}.enriched_events_by_session (
        project_id String,
        session_id String,
        timestamp  Int64,
        event_id   String
      ) ENGINE = ReplacingMergeTree ORDER BY (project_id, session_id, timestamp, event_id)`,
      `CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.enriched_events_by_session_mv
        TO ${db}.enriched_events_by_session
        AS SELECT project_id, session_id, timestamp, event_id FROM ${db}.enriched_events`,
      `CREATE TABLE IF NOT EXISTS ${db}.sessions (
        project_id     String,
        session_id     String,
        first_event_at Int64,
        last_event_at  Int64,
        duration_ms    Int64,
        event_count    Int64,
        actions        Map(String, UInt64),
        entry_url      Nullable(String),
        exit_url       Nullable(String),
        page_count     Int64,
        referrer       Nullable(String),
        ${UTM_CLIENT_GEO},
        attributes     String,
        tags           Array(String),
        classification Nullable(String),
        seen           Array(String),
        updated_at     UInt64
      ) ENGINE = ReplacingMergeTree(updated_at) ORDER BY (project_id, session_id)`,
      `CREATE TABLE IF NOT EXISTS ${db}.actions (
        project_id String,
        action     String,
        last_seen  UInt64
      ) ENGINE = ReplacingMergeTree(last_seen) ORDER BY (project_id, action)`,
    ],
  },
  {
    version: 2,
    name: 'accounts, api keys, signing keys, session tags',
    statements: (db) => [
      `CREATE TABLE IF NOT EXISTS ${db}.accounts (
        account_id    String,
        email         Nullable(String),
        password_hash Nullable(String),
        issuer        String,
        subject       String,
        created_at    Int64,
        version       UInt64 DEFAULT ${FIRST_INSERT_WINS}
      ) ENGINE = ReplacingMergeTree(version) ORDER BY (issuer, subject)`,
      `CREATE TABLE IF NOT EXISTS ${db}.account_emails (
        email      String,
        account_id String,
        version    UInt64 DEFAULT ${FIRST_INSERT_WINS}
      ) ENGINE = ReplacingMergeTree(version) ORDER BY email`,
      `CREATE TABLE IF NOT EXISTS ${db}.api_keys (
        account_id   String,
        api_key_name String,
        generation   UInt32,
        key_hash     String,
        created_at   Int64,
        revoked_at   Nullable(Int64),
        version      UInt64 DEFAULT ${FIRST_INSERT_WINS}
      ) ENGINE = ReplacingMergeTree(version) ORDER BY (account_id, api_key_name, generation)`,
      `CREATE TABLE IF NOT EXISTS ${db}.api_keys_by_hash (
        key_hash     String,
        account_id   String,
        api_key_name String,
        generation   UInt32
      ) ENGINE = ReplacingMergeTree ORDER BY (key_hash, account_id, api_key_name, generation)`,
      `CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.api_keys_by_hash_mv
        TO ${db}.api_keys_by_hash
        AS SELECT key_hash, account_id, api_key_name, generation FROM ${db}.api_keys`,
      `CREATE TABLE IF NOT EXISTS ${db}.signing_keys (
        kid         String,
        private_jwk String,
        public_jwk  String,
        created_at  Int64,
        version     UInt64 DEFAULT ${FIRST_INSERT_WINS}
      ) ENGINE = ReplacingMergeTree(version) ORDER BY kid`,
      `CREATE TABLE IF NOT EXISTS ${db}.session_tags (
        project_id String,
        tag        String,
        session_id String,
        tagged_at  UInt64
      ) ENGINE = ReplacingMergeTree(tagged_at) ORDER BY (project_id, tag, session_id)`,
    ],
  },
  {
    // Tags now carry a source and can be taken back, so step 2's session_tags (one row per
    // tagged session) is dropped, not migrated: no released code ever wrote tags except tests.
    // The facts go to a table of a new name because the step must stay safe to re-run and to
    // run from two processes at once: a process still applying this step could otherwise drop
    // the new table after another one had finished migrating and written tags into it.
    version: 3,
    name: 'tag facts by source, rules, session classifications, jobs',
    statements: (db) => [
      `DROP TABLE IF EXISTS ${db}.session_tags`,
      `CREATE TABLE IF NOT EXISTS ${db}.session_tag_facts (
        project_id String,
        tag        String,
        session_id String,
        source     String,
        tagged_at  Int64,
        removed    Bool,
        changed_at UInt64,
        _written   UInt64 MATERIALIZED ${INSERT_TIME}
      ) ENGINE = ReplacingMergeTree(changed_at) ORDER BY (project_id, tag, session_id, source)`,
      `CREATE TABLE IF NOT EXISTS ${db}.rules (
        project_id  String,
        rule_id     String,
        version     UInt32,
        kind        LowCardinality(String),
        logic       String,
        tags        Array(String),
        label       Nullable(String),
        attribute   Nullable(String),
        value       Nullable(String),
        description Nullable(String),
        enabled     Bool,
        created_at  Int64,
        updated_at  Int64,
        updated_by  String,
        write_id    String,
        _version    UInt64 MATERIALIZED ${FIRST_INSERT_WINS}
      ) ENGINE = ReplacingMergeTree(_version) ORDER BY (project_id, rule_id, version)`,
      `CREATE TABLE IF NOT EXISTS ${db}.session_classifications (
        project_id            String,
        session_id            String,
        rule_ids              Array(String),
        labels                Array(String),
        tags                  String,
        classified_at         UInt64,
        session_last_event_at Int64
      ) ENGINE = ReplacingMergeTree(classified_at) ORDER BY (project_id, session_id)`,
      `CREATE TABLE IF NOT EXISTS ${db}.jobs (
        job_id      String,
        account_id  String,
        project_id  String,
        kind        LowCardinality(String),
        status      LowCardinality(String),
        request     String,
        created_at  Int64,
        started_at  Nullable(Int64),
        finished_at Nullable(Int64),
        progress    Nullable(String),
        result      String,
        error       Nullable(String),
        attempts    UInt32,
        worker      Nullable(String),
        updated_at  UInt64
      ) ENGINE = ReplacingMergeTree(updated_at) ORDER BY job_id`,
    ],
  },
  {
    version: 4,
    name: 'records',
    statements: (db) => [
      `CREATE TABLE IF NOT EXISTS ${db}.records (
        kind       LowCardinality(String),
        project_id String,
        id         String,
        parent_id  String,
        sort_key   Int64,
        data       String,
        updated_at UInt64,
        deleted    Bool
      ) ENGINE = ReplacingMergeTree(updated_at) ORDER BY (kind, project_id, id)`,
    ],
  },
  {
    version: 5,
    name: 'api key scopes, revoked tokens',
    statements: (db) => [
      `ALTER TABLE ${db}.api_keys ADD COLUMN IF NOT EXISTS scope LowCardinality(String) DEFAULT 'full'`,
      `CREATE TABLE IF NOT EXISTS ${db}.revoked_tokens (
        token_id   String,
        expires_at Int64,
        revoked_at Int64
      ) ENGINE = ReplacingMergeTree ORDER BY token_id
        TTL toDateTime(intDiv(expires_at, 1000)) + INTERVAL 1 HOUR`,
    ],
  },
  {
    // Step 6 is left to the events' re-keying work on another branch; versions only need to be
    // distinct. Export files (issue 17, docs/data.md): the worker streams the engine's own
    // output (FORMAT Parquet, CSVWithNames, JSONEachRow) into chunks of at most 1 MiB, base64
    // text, so that whichever gateway replica gets the download can stream it back without a
    // volume shared with the worker. The worker purges them hourly once expired; the TTL is a
    // backstop a week later.
    version: 7,
    name: 'export chunks',
    statements: (db) => [
      `CREATE TABLE IF NOT EXISTS ${db}.export_chunks (
        export_id  String,
        seq        UInt32,
        project_id String,
        bytes      UInt32,
        data       String,
        written_at Int64
      ) ENGINE = ReplacingMergeTree ORDER BY (export_id, seq)
        TTL toDateTime(intDiv(written_at, 1000)) + INTERVAL 7 DAY`,
    ],
  },
  {
    // Per-project retention and IP policy (issue 17, docs/data.md). NULL is the default of
    // both: keep forever, and follow SPOOR_IP_MODE. Enforced by the worker's daily lightweight
    // DELETEs (data-expiry.ts), not a TTL: a TTL cannot differ per project.
    version: 8,
    name: 'project retention days and IP policy',
    statements: (db) => [
      `ALTER TABLE ${db}.projects ADD COLUMN IF NOT EXISTS retention_days Nullable(UInt16)`,
      `ALTER TABLE ${db}.projects ADD COLUMN IF NOT EXISTS ip_policy LowCardinality(Nullable(String))`,
    ],
  },
  {
    // A page of sessions by last activity (issue 15, target 3; session-activity-page.ts). The
    // table is ordered by session, the page by last_event_at, which changes between versions of a
    // row, so it cannot be in the sorting key. Two projections carry the other order, rebuilt by
    // every merge from the deduplicated rows (`deduplicate_merge_projection_mode = 'rebuild'`), so
    // a superseded version leaves them when it leaves the table:
    // - sessions_by_activity: the listed columns ORDER BY (project_id, last_event_at), read by
    //   time slice;
    // - session_activity_hours: rows per project and hour, which says how far back a page of n
    //   sessions reaches before reading it.
    // A lightweight DELETE on a table with projections is refused (the default
    // lightweight_mutation_projection_mode = 'throw', kept on purpose: its 'rebuild' left deleted
    // rows in the projection on chDB 26.9), so sessions are deleted by mutations (ALTER TABLE …
    // DELETE), which rewrite the parts and their projections. MATERIALIZE builds the projections
    // of the parts written before this step (an existing store), waiting for it.
    version: 9,
    name: 'sessions by last activity: projections',
    statements: (db) => [
      `ALTER TABLE ${db}.sessions MODIFY SETTING deduplicate_merge_projection_mode = 'rebuild'`,
      `ALTER TABLE ${db}.sessions ADD PROJECTION IF NOT EXISTS ${SESSIONS_BY_ACTIVITY} (
        SELECT project_id, session_id, first_event_at, last_event_at, event_count, updated_at
        ORDER BY project_id, last_event_at, session_id)`,
      `ALTER TABLE ${db}.sessions ADD PROJECTION IF NOT EXISTS ${SESSION_ACTIVITY_HOURS} (
        SELECT project_id, intDiv(last_event_at, 3600000), count()
        GROUP BY project_id, intDiv(last_event_at, 3600000))`,
      `ALTER TABLE ${db}.sessions MATERIALIZE PROJECTION ${SESSIONS_BY_ACTIVITY} SETTINGS mutations_sync = 2`,
      `ALTER TABLE ${db}.sessions MATERIALIZE PROJECTION ${SESSION_ACTIVITY_HOURS} SETTINGS mutations_sync = 2`,
    ],
  },
  {
    // Hourly rollups of the enriched events, marked by a view at insert and rebuilt per marked
    // hour by the next job (issue 15; rollups.ts). The hours stored before are marked here.
    version: 10,
    name: 'hourly rollups of events, visitors and session paths',
    statements: rollupMigration,
  },
  {
    // Each minute's rollup row keeps its events' offsets in the minute, so a series bucket start
    // that cuts a minute reads no events (issue 15; rollups.ts). Built hours are marked to rebuild.
    version: 11,
    name: 'event offsets in the minutes rollup',
    statements: rollupOffsetsMigration,
  },
  {
    // Members and invitations of a project (issue 45; member-repository.ts). The last write of a
    // key wins (`_written`, the server's insert time); a removed member is a tombstone row, an
    // invitation is deleted once revoked, used or expired. Every project made before gets its account as its owner, once: a project
    // with any membership row is left alone, so a re-run after a crash adds nothing twice.
    version: 12,
    name: 'project members and invitations',
    statements: (db) => [
      `CREATE TABLE IF NOT EXISTS ${db}.project_members (
        project_id String,
        account_id String,
        role       LowCardinality(String),
        created_at Int64,
        updated_at Int64,
        removed    Bool,
        _written   UInt64 MATERIALIZED ${INSERT_TIME}
      ) ENGINE = ReplacingMergeTree(_written) ORDER BY (project_id, account_id)`,
      `CREATE TABLE IF NOT EXISTS ${db}.project_invitations (
        invitation_id String,
        project_id    String,
        email         String,
        role          LowCardinality(String),
        token_hash    String,
        invited_by    String,
        created_at    Int64,
        expires_at    Int64,
        removed       Bool,
        _written      UInt64 MATERIALIZED ${INSERT_TIME}
      ) ENGINE = ReplacingMergeTree(_written) ORDER BY (project_id, invitation_id)`,
      `INSERT INTO ${db}.project_members (project_id, account_id, role, created_at, updated_at, removed)
        SELECT project_id, account_id, 'owner', created_at, created_at, false FROM ${db}.projects FINAL
        WHERE project_id NOT IN (SELECT project_id FROM ${db}.project_members)`,
    ],
  },
  {
    // The audit trail of each project (issue 45, item 7; audit-repository.ts): appended, never
    // updated; a retried append collapses by its key. Deleted with the project and past its
    // retention days (lightweight DELETEs).
    version: 13,
    name: 'audit trail',
    statements: (db) => [
      `CREATE TABLE IF NOT EXISTS ${db}.audit_entries (
        project_id   String,
        entry_id     String,
        made_at      Int64,
        actor_id     String,
        actor_email  Nullable(String),
        via          LowCardinality(String),
        api_key_name Nullable(String),
        action       LowCardinality(String),
        target_kind  LowCardinality(String),
        target_id    String,
        target_name  Nullable(String),
        changes      String
      ) ENGINE = ReplacingMergeTree ORDER BY (project_id, made_at, entry_id)`,
    ],
  },
];

export const clickhouseBootstrap = (db: string): string[] => [
  `CREATE DATABASE IF NOT EXISTS ${db}`,
  `CREATE TABLE IF NOT EXISTS ${db}.schema_migrations (
    version    UInt32,
    name       String,
    applied_at Int64
  ) ENGINE = ReplacingMergeTree ORDER BY version`,
];
