// Every key family Spoor keeps in the KV (Redis, or memory in the one-process mode), in one place
// with its lifetime, as topic names are (issue 20, item 3). Nothing here is the only copy of
// anything: each family can be lost and rebuilt (DESIGN.md, KV). A new family belongs here.
//
// Keys that belong to one project start with the project id after a fixed word, so one prefix
// scan finds them all (projectKvPrefixes; issue 17: once a project is deleted the KV holds
// nothing of it).

const HOUR = 3_600_000;

/** Per project: open sessions, derived session ids, dedup claims, the rules stamp. */
export const kvKeys = {
  /** The sessionizer's open session state (libs/schemas SessionState), until 2 h without events. */
  openSession: (projectId: string, sessionId: string) => `ss:${projectId}:${sessionId}`,
  /** The enricher's open derived session of a (project, ip, user agent, day) key (session-assigner.ts). */
  derivedSession: (projectId: string, sessionKey: string) => `sid:${projectId}:${sessionKey}`,
  /** A (project, event_id) claim holding the bus position that made it (enricher, dedup-window.ts). */
  dedup: (projectId: string, eventId: string) => `dedup:${projectId}:${eventId}`,
  /** When the project's rules last changed: every rules cache re-reads on a new stamp (libs/rules). */
  rulesStamp: (projectId: string) => `rules:stamp:${projectId}`,
  /** Held while a change of the project's members reads and writes (gateway member-lock.ts). */
  memberLock: (projectId: string) => `members:lock:${projectId}`,
  /** The worker that runs a job, renewed while it runs (libs/jobs). */
  jobLease: (jobId: string) => `job:lease:${jobId}`,
  /** One run of a schedule, claimed by the worker that makes it. */
  scheduleRun: (scheduleId: string, runAt: number) => `schedule:run:${scheduleId}:${runAt}`,
  /** The hourly retention pass, claimed by one worker. */
  retentionPass: (hour: number) => `retention:pass:${hour}`,
  /** The daily pass deleting events and sessions past their project's retention_days, claimed by one worker. */
  dataRetentionPass: (day: number) => `data-retention:pass:${day}`,
  /** A threshold-alert pass, claimed by one worker. */
  alertsPass: (slot: number) => `alerts:pass:${slot}`,
  /** A health snapshot slot, claimed by one worker. */
  healthSnapshot: (slot: number) => `health:snapshot:${slot}`,
  /** A webhook delivery already planned for an announcement (a redelivery plans it once). */
  webhookEmitted: (deliveryId: string) => `webhook:emitted:${deliveryId}`,
  /** One attempt of a webhook delivery, claimed by one worker. */
  webhookAttempt: (deliveryId: string, attempt: number) => `webhook:attempt:${deliveryId}:${attempt}`,
  /**
   * A random value that every write revoking a credential (logout, API key, account deletion) replaces:
   * gateways that cache credentials read it before each answer from memory (libs/store record-cache.ts).
   */
  credentialMark: () => 'credentials:mark',
} as const;

/** Lifetimes of the families whose lifetime is fixed; the others take theirs from configuration or their interval. */
export const kvTtlMs = {
  openSession: 2 * HOUR,
  derivedSession: 2 * HOUR,
  /** Client retries come within minutes; a repeated event_id within this window is dropped early. */
  dedup: 6 * HOUR,
  retentionPass: 2 * HOUR,
  dataRetentionPass: 48 * HOUR,
  webhookEmitted: 7 * 24 * HOUR,
  webhookAttempt: 10 * 60_000,
  memberLock: 10_000,
} as const;

/** The KV key of an open session's state (sessionizer); a backfill drops it to force a reload. */
export const openSessionKey = kvKeys.openSession;
export const derivedSessionPrefix = (projectId: string) => kvKeys.derivedSession(projectId, '');

/** Every prefix under which the KV may hold something of the project. */
export function projectKvPrefixes(projectId: string): string[] {
  return [
    kvKeys.openSession(projectId, ''),
    kvKeys.derivedSession(projectId, ''),
    kvKeys.dedup(projectId, ''),
    kvKeys.rulesStamp(projectId),
    kvKeys.memberLock(projectId),
  ];
}
