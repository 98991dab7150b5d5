import { createError, errors } from '@spoor/http';
import { rawFieldsRead } from '@spoor/rules';
import { isVerifiedProject, normalizeOrigin, type ProjectRecord } from '@spoor/schemas';
import type { Store } from '@spoor/store';
import type { Principal } from './auth-guard.js';

/**
 * The project a request names, if the caller's account holds it. Anything else — unknown,
 * malformed, or another account's — answers the same 404 (DESIGN.md: identical for "exists but
 * belongs to another account"), so a token cannot probe what others registered.
 */
export async function scopedProject(
  store: Store,
  principal: Principal,
  origin: string,
  project: string,
): Promise<ProjectRecord> {
  const normalized = normalizeOrigin(origin);
  const found = normalized ? await store.projects.find(normalized, project) : null;
  if (!found || found.account_id !== principal.account_id) throw errors.notFound('Project not found');
  return found;
}

/** Raw and enriched events are readable once the domain is verified; loopback counts as verified. */
export const isVerified: (p: ProjectRecord) => boolean = isVerifiedProject;

export function requireVerified(p: ProjectRecord): void {
  if (!isVerified(p)) throw createError('domain_unverified', p.origin);
}

/**
 * The DNS gate through logic (issue 42): logic evaluated over an unverified project's stored
 * events — a funnel step, an attribute rule — may read only what its summaries already show
 * (libs/rules/src/raw-fields.ts). `what` names the logic in the 403's message.
 */
export function requireRawFieldsReadable(p: ProjectRecord, what: string, ...logic: unknown[]): void {
  if (isVerified(p)) return;
  const raw = [...new Set(logic.flatMap(rawFieldsRead))];
  if (raw.length > 0) throw createError('raw_fields_unverified', what, raw.join(', '), p.origin);
}
