// DuckDB schema, one numbered step at a time. A step is applied once, inside one transaction
// together with its schema_migrations row. Never edit a released step: add the next one.
//
// Timestamps are BIGINT integer ms (the API's unit). JSON-valued fields are VARCHAR holding
// JSON text (payload, query, actions, attributes, tags, classification, seen; from step 3 also
// rule logic and value, classification rule_ids/labels/tags, job request/progress/result):
// exact round trips, and DuckDB's json functions can still look inside them.
//
// Indexes: only the primary keys (they carry the idempotency; from step 6 the events' is one
// hashed column, EVENT_KEY, and from step 9 it lives in `event_keys`, which holds the latest
// events' keys only) and, from step 2, the UNIQUE constraints of the small account
// tables (they carry the conflicts); from step 11 one more, on `sessions.session_id`, for the
// point reads of a session (DuckDB's index scan takes one column only). DuckDB prunes range
// scans with per-row-group min/max zone maps, so `timestamp` and `last_event_at` windows need
// no ART index; extra ART indexes would slow every batch insert.
import { BUILD_ALL_ROLLUPS, CREATE_ROLLUP_TABLES, CREATE_STATS_ROLLUP_TABLES_14, STATS_ROLLUPS_17 } from './rollups.js';
import { ADD_DERIVED_SESSION_COLUMNS } from './session-derived.js';

export interface DuckMigration {
  version: number;
  name: string;
  statements: string[];
}

const EVENT_COLUMNS = `
  project_id       VARCHAR NOT NULL,
  event_id         VARCHAR NOT NULL,
  project          VARCHAR NOT NULL,
  origin           VARCHAR NOT NULL,
  action           VARCHAR NOT NULL,
  "timestamp"      BIGINT  NOT NULL,
  client_timestamp BIGINT  NOT NULL,
  sent_at          BIGINT,
  received_at      BIGINT  NOT NULL,
  payload          VARCHAR NOT NULL,
  session_id       VARCHAR,
  url              VARCHAR,
  referrer         VARCHAR,
  ip               VARCHAR NOT NULL,
  user_agent       VARCHAR NOT NULL`;

const NAME_VERSION_GEO_UTM = `
  utm_source VARCHAR, utm_medium VARCHAR, utm_campaign VARCHAR, utm_term VARCHAR, utm_content VARCHAR,
  browser_name VARCHAR, browser_version VARCHAR, os_name VARCHAR, os_version VARCHAR,
  device_type VARCHAR, device_vendor VARCHAR, device_model VARCHAR,
  geo_country VARCHAR, geo_region VARCHAR, geo_city VARCHAR, geo_latitude DOUBLE, geo_longitude DOUBLE`;

/** md5 of project_id, a unit separator and event_id (a project id never holds U+001F). */
export const EVENT_KEY = 'md5_number(project_id || chr(31) || event_id)::UHUGEINT';

const ENRICHED_EXTRA = `${NAME_VERSION_GEO_UTM},
  bot   BOOLEAN NOT NULL,
  path  VARCHAR,
  query VARCHAR NOT NULL`;

export const duckdbMigrations: readonly DuckMigration[] = [
  {
    version: 1,
    name: 'projects, events, sessions, actions',
    statements: [
      `CREATE TABLE projects (
        project_id         VARCHAR PRIMARY KEY,
        origin             VARCHAR NOT NULL,
        project            VARCHAR NOT NULL,
        account_id         VARCHAR NOT NULL,
        verified           BOOLEAN NOT NULL,
        verification_token VARCHAR NOT NULL,
        created_at         BIGINT  NOT NULL,
        UNIQUE (origin, project))`,
      `CREATE TABLE raw_events (${EVENT_COLUMNS},
        PRIMARY KEY (project_id, event_id))`,
      `CREATE TABLE enriched_events (${EVENT_COLUMNS}, ${ENRICHED_EXTRA},
        PRIMARY KEY (project_id, event_id))`,
      `CREATE TABLE sessions (
        project_id     VARCHAR NOT NULL,
        session_id     VARCHAR NOT NULL,
        first_event_at BIGINT  NOT NULL,
        last_event_at  BIGINT  NOT NULL,
        duration_ms    BIGINT  NOT NULL,
        event_count    BIGINT  NOT NULL,
        actions        VARCHAR NOT NULL,
        entry_url      VARCHAR,
        exit_url       VARCHAR,
        page_count     BIGINT  NOT NULL,
        referrer       VARCHAR,
        ${NAME_VERSION_GEO_UTM},
        attributes     VARCHAR NOT NULL,
        tags           VARCHAR NOT NULL,
        classification VARCHAR,
        seen           VARCHAR NOT NULL,
        updated_at     BIGINT  NOT NULL,
        PRIMARY KEY (project_id, session_id))`,
      `CREATE TABLE actions (
        project_id VARCHAR NOT NULL,
        action     VARCHAR NOT NULL,
        last_seen  BIGINT  NOT NULL,
        PRIMARY KEY (project_id, action))`,
    ],
  },
  {
    // DuckDB has no partial unique index, so the two "unique among some rows" rules get a
    // column of their own that is NULL for the rows the rule exempts (NULLs never collide
    // in a UNIQUE constraint): builtin_email is the lowercased email of a built-in account,
    // live_name the name of a key until it is revoked.
    version: 2,
    name: 'accounts, api keys, signing keys, session tags',
    statements: [
      `CREATE TABLE accounts (
        account_id    VARCHAR PRIMARY KEY,
        email         VARCHAR,
        password_hash VARCHAR,
        issuer        VARCHAR NOT NULL,
        subject       VARCHAR NOT NULL,
        created_at    BIGINT  NOT NULL,
        builtin_email VARCHAR UNIQUE,
        UNIQUE (issuer, subject))`,
      `CREATE TABLE api_keys (
        key_hash     VARCHAR PRIMARY KEY,
        account_id   VARCHAR NOT NULL,
        api_key_name VARCHAR NOT NULL,
        created_at   BIGINT  NOT NULL,
        revoked_at   BIGINT,
        live_name    VARCHAR,
        UNIQUE (account_id, live_name))`,
      `CREATE TABLE signing_keys (
        kid         VARCHAR PRIMARY KEY,
        private_jwk VARCHAR NOT NULL,
        public_jwk  VARCHAR NOT NULL,
        created_at  BIGINT  NOT NULL)`,
      `CREATE TABLE session_tags (
        project_id VARCHAR NOT NULL,
        session_id VARCHAR NOT NULL,
        tag        VARCHAR NOT NULL,
        tagged_at  BIGINT  NOT NULL,
        PRIMARY KEY (project_id, session_id, tag))`,
    ],
  },
  {
    // session_tags (step 2) held one row per (project, session, tag); tags now carry a source
    // and can be taken back, so a row is one fact per (project, tag, session, source) and
    // upserts keep the greatest changed_at (tag-repository.ts). The old table is dropped, not
    // migrated: no released code ever wrote tags except tests. The new table has a new name
    // so that this step reads the same in both backends (ClickHouse's migrations.ts says why
    // it matters there). rules: one row per version, the primary key carries put()'s
    // conflict. session_classifications and jobs: newest classified_at / updated_at wins.
    version: 3,
    name: 'tag facts by source, rules, session classifications, jobs',
    statements: [
      'DROP TABLE IF EXISTS session_tags',
      `CREATE TABLE session_tag_facts (
        project_id VARCHAR NOT NULL,
        tag        VARCHAR NOT NULL,
        session_id VARCHAR NOT NULL,
        source     VARCHAR NOT NULL,
        tagged_at  BIGINT  NOT NULL,
        removed    BOOLEAN NOT NULL,
        changed_at BIGINT  NOT NULL,
        PRIMARY KEY (project_id, tag, session_id, source))`,
      `CREATE TABLE rules (
        project_id  VARCHAR NOT NULL,
        rule_id     VARCHAR NOT NULL,
        version     INTEGER NOT NULL,
        kind        VARCHAR NOT NULL,
        logic       VARCHAR NOT NULL,
        tags        VARCHAR NOT NULL,
        label       VARCHAR,
        attribute   VARCHAR,
        value       VARCHAR,
        description VARCHAR,
        enabled     BOOLEAN NOT NULL,
        created_at  BIGINT  NOT NULL,
        updated_at  BIGINT  NOT NULL,
        updated_by  VARCHAR NOT NULL,
        PRIMARY KEY (project_id, rule_id, version))`,
      `CREATE TABLE session_classifications (
        project_id            VARCHAR NOT NULL,
        session_id            VARCHAR NOT NULL,
        rule_ids              VARCHAR NOT NULL,
        labels                VARCHAR NOT NULL,
        tags                  VARCHAR NOT NULL,
        classified_at         BIGINT  NOT NULL,
        session_last_event_at BIGINT  NOT NULL,
        PRIMARY KEY (project_id, session_id))`,
      `CREATE TABLE jobs (
        job_id      VARCHAR PRIMARY KEY,
        account_id  VARCHAR NOT NULL,
        project_id  VARCHAR NOT NULL,
        kind        VARCHAR NOT NULL,
        status      VARCHAR NOT NULL,
        request     VARCHAR NOT NULL,
        created_at  BIGINT  NOT NULL,
        started_at  BIGINT,
        finished_at BIGINT,
        progress    VARCHAR,
        result      VARCHAR NOT NULL,
        error       VARCHAR,
        attempts    INTEGER NOT NULL,
        worker      VARCHAR,
        updated_at  BIGINT  NOT NULL)`,
    ],
  },
  {
    // Channels, webhooks and their deliveries, schedules, alerts, overviews, transition
    // matrices and health snapshots: small documents in one table (store.ts, RecordRepository).
    version: 4,
    name: 'records',
    statements: [
      `CREATE TABLE records (
        kind       VARCHAR NOT NULL,
        project_id VARCHAR NOT NULL,
        id         VARCHAR NOT NULL,
        parent_id  VARCHAR NOT NULL,
        sort_key   BIGINT  NOT NULL,
        data       VARCHAR NOT NULL,
        updated_at BIGINT  NOT NULL,
        deleted    BOOLEAN NOT NULL,
        PRIMARY KEY (kind, project_id, id))`,
    ],
  },
  {
    // API key scopes (keys made before read as `full`, what they could do), and the ID tokens
    // revoked by POST /v1/auth/logout, kept until the token would expire anyway.
    version: 5,
    name: 'api key scopes, revoked tokens',
    statements: [
      `ALTER TABLE api_keys ADD COLUMN scope VARCHAR DEFAULT 'full'`,
      `CREATE TABLE revoked_tokens (
        token_id   VARCHAR PRIMARY KEY,
        expires_at BIGINT  NOT NULL,
        revoked_at BIGINT  NOT NULL)`,
    ],
  },
  {
    // The events' idempotency key becomes one 128-bit number, md5 of (project_id, event_id)
    // (EVENT_KEY), instead of the two strings: an ART index over two 36-character strings cost
    // about half of the enricher's write and grew with the table, and every checkpoint rewrote
    // it (issue 14; 200,000 event pairs in 2,000-row batches: 100 → 44 µs each, final
    // checkpoint 940 → 381 ms). A collision of two different events needs ~2^64 events in one
    // store. DuckDB cannot drop a primary key, so each table is copied once into its new shape.
    version: 6,
    name: 'events keyed by a hash of (project_id, event_id)',
    statements: [...rekey('raw_events', ''), ...rekey('enriched_events', `, ${ENRICHED_EXTRA}`)],
  },
  {
    // One row per event (issue 14): the raw and the enriched row shared every column but ip, url
    // and referrer, yet each was staged, inserted and indexed on its own — two thirds of the
    // enricher's write. `events` holds the enriched row, the three raw values and a flag per
    // half (insertRaw and insertEnriched still store one half alone); the two old names become
    // views, so every read and export is unchanged. Column order is the Appender's
    // (events-table.ts, EVENTS_TABLE).
    version: 7,
    name: 'one events table; raw_events and enriched_events as views',
    statements: [
      `CREATE TABLE events (${EVENT_COLUMNS}, ${NAME_VERSION_GEO_UTM},
        bot          BOOLEAN,
        path         VARCHAR,
        query        VARCHAR,
        raw_ip       VARCHAR,
        raw_url      VARCHAR,
        raw_referrer VARCHAR,
        has_raw      BOOLEAN NOT NULL,
        has_enriched BOOLEAN NOT NULL,
        event_key    UHUGEINT PRIMARY KEY)`,
      `INSERT INTO events BY NAME
        SELECT e.*, r.ip AS raw_ip, r.url AS raw_url, r.referrer AS raw_referrer,
          r.event_key IS NOT NULL AS has_raw, true AS has_enriched
        FROM enriched_events e LEFT JOIN raw_events r ON r.event_key = e.event_key`,
      `INSERT INTO events BY NAME
        SELECT r.*, r.ip AS raw_ip, r.url AS raw_url, r.referrer AS raw_referrer, true AS has_raw, false AS has_enriched
        FROM raw_events r ANTI JOIN enriched_events e ON e.event_key = r.event_key`,
      'DROP TABLE raw_events',
      'DROP TABLE enriched_events',
      `CREATE VIEW raw_events AS
        SELECT project_id, event_id, project, origin, action, "timestamp", client_timestamp, sent_at, received_at,
          payload, session_id, raw_url AS url, raw_referrer AS referrer, raw_ip AS ip, user_agent, event_key
        FROM events WHERE has_raw`,
      `CREATE VIEW enriched_events AS
        SELECT * EXCLUDE (raw_ip, raw_url, raw_referrer, has_raw, has_enriched) FROM events WHERE has_enriched`,
    ],
  },
  {
    // Per-project retention and IP policy (issue 17, docs/data.md). NULL is the default of
    // both: keep forever, and follow SPOOR_IP_MODE, so projects made before keep behaving as they did.
    version: 8,
    name: 'project retention days and IP policy',
    statements: [
      'ALTER TABLE projects ADD COLUMN retention_days INTEGER',
      'ALTER TABLE projects ADD COLUMN ip_policy VARCHAR',
    ],
  },
  {
    // The events' idempotency moves from a primary key over every event to `event_keys`, the
    // keys of the latest events only (issue 14, memory; event-repository.ts). DuckDB holds an ART
    // index in memory whole and never evicts it: at 45–65 bytes an event, the key of `events`
    // outgrew a 128 MB memory limit near 2.7 M events and would outgrow the default 1 GB near
    // 15 M, after which every write is refused. `events` is copied once into a table without
    // the key (DuckDB cannot drop one); the latest 500,000 events by physical order keep their
    // keys (the default window then; SPOOR_DUCKDB_KEY_WINDOW may set another from here on).
    version: 9,
    name: 'events without a primary key; event_keys holds the latest events’ keys',
    statements: [
      'CREATE TABLE events_unkeyed AS SELECT * FROM events LIMIT 0',
      ...['event_key', 'has_raw', 'has_enriched'].map((c) => `ALTER TABLE events_unkeyed ALTER ${c} SET NOT NULL`),
      'INSERT INTO events_unkeyed SELECT * FROM events',
      'DROP TABLE events',
      'ALTER TABLE events_unkeyed RENAME TO events',
      `CREATE TABLE event_keys (
        event_key   UHUGEINT PRIMARY KEY,
        project_id  VARCHAR NOT NULL,
        "timestamp" BIGINT  NOT NULL)`,
      `INSERT INTO event_keys SELECT event_key, project_id, "timestamp" FROM events
        WHERE rowid >= (SELECT count(*) FROM events) - 500000`,
    ],
  },
  {
    // Hourly rollups of the enriched events, built here from what is stored; from here on each
    // write marks its hours and a job rebuilds the marked ones first (issue 15; rollups.ts).
    version: 10,
    name: 'hourly rollups of events, visitors and session paths',
    statements: [...CREATE_ROLLUP_TABLES, ...BUILD_ALL_ROLLUPS],
  },
  {
    // A session read by its id (its summary before its events, attributes or tags) scanned every
    // summary of the table: DuckDB 1.5 scans an index only for a filter on one indexed column, and
    // the primary key has two. 50,000 sessions: 5.0 → 1.6 ms a read, and no longer growing with
    // the table (issue 15). ~100 bytes of memory a session; 4,000 upserts (half new) took 25 ms
    // with and without it. A later step that rebuilds `sessions` must drop it first.
    version: 11,
    name: 'index on sessions.session_id',
    statements: ['CREATE INDEX sessions_by_session_id ON sessions (session_id)'],
  },
  {
    // Members and invitations of a project (issue 45; member-repository.ts): every project made
    // before gets its account as its owner. An invitation keeps only its token's hash.
    version: 12,
    name: 'project members and invitations',
    statements: [
      `CREATE TABLE project_members (
        project_id VARCHAR NOT NULL,
        account_id VARCHAR NOT NULL,
        role       VARCHAR NOT NULL,
        created_at BIGINT  NOT NULL,
        updated_at BIGINT  NOT NULL,
        PRIMARY KEY (project_id, account_id))`,
      `CREATE TABLE project_invitations (
        invitation_id VARCHAR PRIMARY KEY,
        project_id    VARCHAR NOT NULL,
        email         VARCHAR NOT NULL,
        role          VARCHAR NOT NULL,
        token_hash    VARCHAR NOT NULL UNIQUE,
        invited_by    VARCHAR NOT NULL,
        created_at    BIGINT  NOT NULL,
        expires_at    BIGINT  NOT NULL)`,
      `INSERT INTO project_members SELECT project_id, account_id, 'owner', created_at, created_at FROM projects`,
    ],
  },
  {
    // The audit trail of each project (issue 45, item 7; audit-repository.ts): appended, never
    // updated; deleted with the project and past its retention days.
    version: 13,
    name: 'audit trail',
    statements: [
      `CREATE TABLE audit_entries (
        project_id   VARCHAR NOT NULL,
        entry_id     VARCHAR NOT NULL,
        made_at      BIGINT  NOT NULL,
        actor_id     VARCHAR NOT NULL,
        actor_email  VARCHAR,
        via          VARCHAR NOT NULL,
        api_key_name VARCHAR,
        action       VARCHAR NOT NULL,
        target_kind  VARCHAR NOT NULL,
        target_id    VARCHAR NOT NULL,
        target_name  VARCHAR,
        changes      VARCHAR NOT NULL,
        PRIMARY KEY (project_id, entry_id))`,
    ],
  },
  {
    // The stats query's hourly rollups (issue 44; rollups.ts, stats-query.ts). This step built
    // them from what was stored; it no longer does, as step 17 makes them again and builds them
    // (the end state of every store is the same; a store past this step never runs it again).
    version: 14,
    name: 'hourly rollups of the stats query',
    statements: [...CREATE_STATS_ROLLUP_TABLES_14],
  },
  {
    // The referrer's host and the entry and exit pages of each session, worked out when it is
    // written instead of at each stats query (issue 44; session-derived.ts).
    version: 15,
    name: 'sessions: referrer host, entry and exit page',
    statements: ADD_DERIVED_SESSION_COLUMNS,
  },
  {
    // Step 11's index again, in a transaction of its own (session-derived.ts says why).
    version: 16,
    name: 'index on sessions.session_id, again',
    statements: ['CREATE INDEX sessions_by_session_id ON sessions (session_id)'],
  },
  {
    // The stats rollups with each session's dimensions and each page visitor's previous hour,
    // built from what is stored; from here on rebuilt from the marked hours (rollups.ts).
    version: 17,
    name: 'stats rollups: session dimensions, previous hour of a page visitor',
    statements: STATS_ROLLUPS_17,
  },
];

function rekey(table: string, extra: string): string[] {
  return [
    `CREATE TABLE ${table}_rekeyed (${EVENT_COLUMNS}${extra},
      event_key UHUGEINT PRIMARY KEY)`,
    `INSERT INTO ${table}_rekeyed SELECT *, ${EVENT_KEY} FROM ${table}`,
    `DROP TABLE ${table}`,
    `ALTER TABLE ${table}_rekeyed RENAME TO ${table}`,
  ];
}

export const DUCKDB_MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS schema_migrations (
  version    INTEGER PRIMARY KEY,
  name       VARCHAR NOT NULL,
  applied_at BIGINT  NOT NULL)`;
