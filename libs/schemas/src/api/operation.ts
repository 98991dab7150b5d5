import type { z } from 'zod';
import type { ErrorCode } from './error-catalogue.js';
import type { AuditAction } from './audit-api.js';

type AnyObject = z.ZodObject<z.ZodRawShape>;

/**
 * Which credentials an authenticated operation takes: `read` any, `write` any but a read-only
 * API key, `operator` an operator's only (gateway's auth-guard.ts, Principal.operator).
 */
export type Access = 'read' | 'write' | 'operator';

/** A member's role on a project (issue 45), highest first: each may do what the ones below it may. */
export const PROJECT_ROLES = ['owner', 'admin', 'editor', 'viewer'] as const;
export type ProjectRole = (typeof PROJECT_ROLES)[number];

/**
 * The least role an operation needs (issue 45; docs/security.md, Roles): a project role for an
 * operation on one project, `account` for one on the caller's own account (sign-in, API keys,
 * jobs, accepting an invitation), `public` for one without credentials (ingest, sign-up).
 * Documented as `x-spoor-role`, from which the role matrix test calls every operation as every role.
 */
export type OperationRole = ProjectRole | 'account' | 'public';

export function isProjectRole(role: unknown): role is ProjectRole {
  return (PROJECT_ROLES as readonly unknown[]).includes(role);
}

/** Whether `held` is `needed` or above it (owner > admin > editor > viewer). */
export function roleAtLeast(held: ProjectRole, needed: ProjectRole): boolean {
  return PROJECT_ROLES.indexOf(held) <= PROJECT_ROLES.indexOf(needed);
}

/**
 * One declaration per operation: the same object mounts the handler (with validation of query,
 * path and body) and registers the OpenAPI path, so the document can never drift from what the
 * server does. The gateway mounts its own with `defineOperation`; ingest mounts the two ingest
 * operations (ingest-api.ts) on its fast lane and its express router, and the gateway documents
 * them from the same objects.
 */
export interface Operation<
  Q extends AnyObject | undefined = AnyObject | undefined,
  P extends AnyObject | undefined = AnyObject | undefined,
  B extends z.ZodType | undefined = z.ZodType | undefined,
  R extends z.ZodType = z.ZodType,
> {
  method: 'get' | 'post' | 'patch' | 'delete';
  /** OpenAPI form: `/v1/sessions/{session_id}`. */
  path: string;
  /** Other spellings served the same way (e.g. `/v1/event` for `/v1/events`). */
  aliases?: readonly string[];
  summary: string;
  tag: string;
  auth: boolean;
  /**
   * Default: `read` for GET, `write` for every other method, so a new operation that changes
   * something can never be called with a read-only key by mistake. Override only to narrow
   * (`operator`) or for an operation that changes nothing of the account's data (logout).
   */
  access?: Access;
  /**
   * Required, so an operation cannot be added without saying who may call it: the gateway's
   * scopedProject refuses a member below it (403 role_required) and anyone else (404).
   */
  role: OperationRole;
  /**
   * The audit trail's actions the operation records when it succeeds (issue 45, item 7;
   * docs/security.md, Audit trail), documented as `x-spoor-audit`. The handler notes each change
   * with its before and after; the gateway writes the entries once the handler succeeded.
   */
  audit?: readonly AuditAction[];
  query?: Q;
  params?: P;
  body?: B;
  response: R;
  /** What the 200 answer means (default "Success"). */
  responseDescription?: string;
  /**
   * The catalogued errors this operation answers besides the ones its declaration implies: 422
   * always, 401 with `auth`, 403 for its access, 400 for a path parameter that does not decode,
   * and malformed JSON, 413 and 415 with a body (`failuresOf`).
   */
  failures?: readonly ErrorCode[];
  /** Largest JSON body accepted, in bytes (default 256 KB). */
  bodyLimit?: number;
  /** The body may also come as `text/plain` (what `navigator.sendBeacon` sends): ingest only. */
  textPlain?: boolean;
  /**
   * The handler gets the body as its text (`bodyText`), neither parsed nor validated here: it
   * parses and checks it off the HTTP thread against `body`, which still documents it (issue 42:
   * the rules test's 4 MB of JSON held the event loop ~100 ms).
   */
  bodyText?: boolean;
}

export const DEFAULT_BODY_LIMIT = 256 * 1024;

export function accessOf(op: { method: string; access?: Access | undefined }): Access {
  return op.access ?? (op.method === 'get' ? 'read' : 'write');
}

const ACCESS_FAILURE: Record<Access, ErrorCode | null> = {
  read: null,
  write: 'read_only_key',
  operator: 'operators_only',
};

/** Every catalogued error an operation may answer: what its declaration implies, then its own. */
export function failuresOf(
  op: Pick<Operation, 'method' | 'auth' | 'access' | 'role' | 'params' | 'body' | 'failures'>,
): ErrorCode[] {
  const implied: ErrorCode[] = ['validation_error'];
  if (op.auth) implied.push('unauthorized');
  const byAccess = op.auth ? ACCESS_FAILURE[accessOf(op)] : null;
  if (byAccess) implied.push(byAccess);
  if (isProjectRole(op.role)) implied.push('not_found');
  if (isProjectRole(op.role) && op.role !== 'viewer') implied.push('role_required');
  if (op.params) implied.push('malformed_path');
  if (op.body) implied.push('malformed_json', 'body_too_large', 'unsupported_media_type', 'unsupported_encoding');
  return [...new Set([...implied, ...(op.failures ?? [])])];
}

/** A stable operation id from method and path: `get_sessions_session_id_events`. */
export function operationId(method: string, path: string): string {
  return `${method}_${path
    .replace(/^\/v1\//, '')
    .replace(/[{}]/g, '')
    .replace(/[^A-Za-z0-9]+/g, '_')
    .replace(/_+$/, '')}`;
}
