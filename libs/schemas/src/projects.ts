/** What of a visitor's address is stored (SPOOR_IP_MODE, or a project's `ip_policy`; docs/data.md). */
export const IP_POLICIES = ['full', 'truncate', 'hash'] as const;
export type IpPolicy = (typeof IP_POLICIES)[number];

/** Bounds of a project's `retention_days` (PATCH /v1/projects): a day to ten years. */
export const RETENTION_DAYS_MIN = 1;
export const RETENTION_DAYS_MAX = 3650;

export interface ProjectRecord {
  project_id: string;
  origin: string;
  project: string;
  account_id: string;
  verified: boolean;
  verification_token: string;
  created_at: number;
  /**
   * Events and sessions older than this many days are deleted by the worker's daily pass; null
   * (the default) keeps them. Optional so that a record made before issue 17 stays a record; the
   * store always answers it.
   */
  retention_days?: number | null;
  /** What the enricher stores of the IP; null (the default) follows SPOOR_IP_MODE. */
  ip_policy?: IpPolicy | null;
}

/** The settings PATCH /v1/projects changes: a field left out is kept. */
export interface ProjectSettings {
  retention_days?: number | null;
  ip_policy?: IpPolicy | null;
}
