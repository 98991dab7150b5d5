import { createError, errors } from '@spoor/http';
import { isLoopbackOrigin, normalizeOrigin, type ProjectRecord } from '@spoor/schemas';
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
export function isVerified(p: ProjectRecord): boolean {
  return p.verified || isLoopbackOrigin(p.origin);
}

export function requireVerified(p: ProjectRecord): void {
  if (!isVerified(p)) throw createError('domain_unverified', p.origin);
}
