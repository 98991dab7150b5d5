// The audit trail of a project (issue 45, item 7; docs/security.md, Audit trail): who changed
// members, roles, rules, outbound configuration, settings and data, and when. Entries are written
// by the gateway after a change succeeded (services/gateway/src/audit/), read by owners and admins.
import { z, EpochMs } from '../zod.js';
import { ScopeQuery, WindowQuery, limitParam } from './common.js';

/**
 * Every action recorded, `<category>.<verb>`. Additive only: a client may meet a category it does
 * not know yet, never a renamed one.
 */
export const AUDIT_ACTIONS = [
  'project.created',
  'project.settings_changed',
  'project.verified',
  'member.role_changed',
  'member.exports_changed',
  'member.removed',
  'member.left',
  'ownership.transferred',
  'invitation.created',
  'invitation.revoked',
  'invitation.accepted',
  'rule.created',
  'rule.updated',
  'rule.disabled',
  'channel.created',
  'channel.deleted',
  'webhook.created',
  'webhook.deleted',
  'webhook.enabled',
  'schedule.created',
  'schedule.deleted',
  'alert.created',
  'alert.deleted',
  'funnel.saved',
  'funnel.deleted',
  'share_link.created',
  'share_link.revoked',
  'data.export_requested',
  'data.erasure_requested',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** The part before the dot: what `action` filters by when it names no single action. */
export type AuditCategory = AuditAction extends `${infer C}.${string}` ? C : never;
export const AUDIT_CATEGORIES = [...new Set(AUDIT_ACTIONS.map((a) => a.split('.')[0]!))] as AuditCategory[];

/** What an entry is about. */
export const AUDIT_TARGET_KINDS = [
  'project',
  'member',
  'invitation',
  'rule',
  'channel',
  'webhook',
  'schedule',
  'alert',
  'funnel',
  'share_link',
  'export',
  'erasure',
] as const;
export type AuditTargetKind = (typeof AUDIT_TARGET_KINDS)[number];

export const AuditActor = z
  .object({
    account_id: z.string(),
    email: z.string().nullable().openapi({ description: 'The account email at the time, if it has one' }),
    via: z.enum(['token', 'api_key']).openapi({ description: 'token: a signed-in ID token; api_key: an API key' }),
    api_key_name: z.string().nullable().openapi({ description: 'The API key used (its name, never the secret)' }),
  })
  .openapi('AuditActor');

export const AuditTarget = z
  .object({
    kind: z.enum(AUDIT_TARGET_KINDS),
    id: z
      .string()
      .openapi({ description: 'rule_id, webhook_id, the member account_id, …; the project_id for the project itself' }),
    name: z.string().nullable().openapi({
      description: 'A readable name at the time: an email, a label, a webhook host; null when there is none',
    }),
  })
  .openapi('AuditTarget');

export const AuditChange = z
  .object({ before: z.unknown(), after: z.unknown() })
  .openapi('AuditChange', { description: 'A field before and after the change; null where it did not exist' });

export const AuditEntry = z
  .object({
    entry_id: z.string(),
    at: EpochMs,
    actor: AuditActor,
    action: z.enum(AUDIT_ACTIONS),
    target: AuditTarget,
    changes: z.record(z.string(), AuditChange).openapi({
      description:
        'Changed fields by name, before and after. Never a secret: no webhook secret, no chat or webhook URL path or query, no token, no password',
    }),
  })
  .openapi('AuditEntry');
export type AuditEntryData = z.infer<typeof AuditEntry>;

const AuditActionFilter = z
  .enum([...AUDIT_CATEGORIES, ...AUDIT_ACTIONS] as unknown as [string, ...string[]])
  .optional()
  .openapi({ description: 'One action (`member.removed`) or a category (`member`: every `member.*`)' });

export const AuditQuery = ScopeQuery.extend(WindowQuery.shape).extend({
  action: AuditActionFilter,
  actor: z
    .string()
    .min(1)
    .max(320)
    .optional()
    .openapi({ description: 'Only entries by this account: its account_id or email (case-insensitive)' }),
  limit: limitParam(50, 500),
  cursor: z
    .string()
    .min(1)
    .max(200)
    .regex(/^[A-Za-z0-9_-]+$/, 'must be a next_cursor this endpoint answered')
    .optional()
    .openapi({ description: "The previous page's next_cursor: the entries after it" }),
});

export const AuditList = z
  .object({
    entries: z.array(AuditEntry).openapi({ description: 'Newest first (then by entry_id)' }),
    next_cursor: z
      .string()
      .nullable()
      .openapi({ description: 'Pass as `cursor` for the next page; null on the last page' }),
  })
  .openapi('AuditList');
