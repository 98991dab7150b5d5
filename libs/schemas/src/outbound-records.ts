// What the records table holds for each kind (libs/store, RecordRepository): the gateway writes
// configuration, the worker reads it and writes deliveries, results and health snapshots.
import type { ChannelKind, WebhookEventType } from './api/outbound-api.js';

export const RECORD_KINDS = {
  channel: 'channel',
  /** The hashed confirmation token of one email recipient of a channel (issue 13). */
  recipientToken: 'recipient-token',
  webhook: 'webhook',
  delivery: 'delivery',
  /** A delivery awaiting an attempt: a small index the retry loop scans across projects. */
  pendingDelivery: 'delivery-pending',
  schedule: 'schedule',
  alert: 'alert',
  overview: 'overview',
  transitions: 'transitions',
  health: 'health',
  /** A saved funnel (POST /v1/funnels; SavedFunnelData), also run for each digest. */
  funnel: 'funnel',
  /** The install's first account, project '' (issue 45): the operator while SPOOR_ADMIN_EMAILS names none. */
  installOperator: 'install-operator',
  /** A public share link of a project (issue 45, item 3; ShareLinkData). */
  shareLink: 'share-link',
  /** Project '', id the SHA-256 of a share link's token: which project and link it opens (ShareTokenData). */
  shareToken: 'share-token',
  /** A viewer's grant to export raw events (issue 45, item 1): id the member's account id (ExportGrantData). */
  exportGrant: 'export-grant',
} as const;

/** Who let a viewer export, and when (docs/security.md, Roles). */
export interface ExportGrantData {
  granted_by: string;
  granted_at: number;
}

/** A share link (docs/security.md, Share links): its token only as its SHA-256, its password as scrypt. */
export interface ShareLinkData {
  share_id: string;
  label: string;
  token_hash: string;
  password_hash: string | null;
  /** 32 random bytes (base64url) signing this link's unlock grants; never answered. */
  grant_key: string;
  created_by: string;
  created_at: number;
}

export interface ShareTokenData {
  project_id: string;
  share_id: string;
}

export interface ChannelData {
  channel_id: string;
  name: string;
  kind: ChannelKind;
  recipients: string[];
  /**
   * The recipients who followed their confirmation link: only they get mail (issue 13). Absent on
   * channels made before confirmation existed, which therefore send nothing until re-created.
   */
  confirmed?: string[];
  url: string | null;
  created_at: number;
}

export interface WebhookData {
  webhook_id: string;
  url: string;
  events: WebhookEventType[];
  description: string | null;
  /** whsec_…; kept readable because every delivery is signed with it (HMAC needs the key). */
  secret: string;
  enabled: boolean;
  disabled_reason: string | null;
  /** Since when every delivery failed; null after a success. */
  failing_since: number | null;
  created_at: number;
}

export interface DeliveryData {
  delivery_id: string;
  webhook_id: string;
  event_type: WebhookEventType;
  status: 'pending' | 'succeeded' | 'failed';
  attempts: number;
  next_attempt_at: number | null;
  response_status: number | null;
  response_body: string | null;
  error: string | null;
  created_at: number;
  updated_at: number;
  /** The body sent: { type, timestamp, data }. */
  payload: Record<string, unknown>;
}

export interface ScheduleData {
  schedule_id: string;
  kind: 'aggregation' | 'notification' | 'transitions';
  interval_ms: number;
  channels: string[] | null;
  enabled: boolean;
  next_run_at: number;
  last_run_at: number | null;
  last_job_id: string | null;
  /** The account the scheduled jobs run for. */
  account_id: string;
  created_at: number;
}

export type AlertCondition =
  | { type: 'tag_count'; tag: string; threshold: number; window_ms: number }
  | { type: 'action_absent'; action: string; window_ms: number }
  | { type: 'rule_match'; rule_id: string };

export interface AlertData {
  alert_id: string;
  name: string;
  condition: AlertCondition;
  channels: string[] | null;
  /** A threshold alert fires once when it crosses and again only after it cleared. */
  firing: boolean;
  last_fired_at: number | null;
  created_at: number;
}

/** One recipient's confirmation, stored under the SHA-256 of its token (never the token). */
export interface RecipientTokenData {
  channel_id: string;
  address: string;
  expires_at: number;
  /** When the confirmation mail went out; null when it could not be sent (see `mail_error`). */
  mailed_at: number | null;
  mail_error: string | null;
}
