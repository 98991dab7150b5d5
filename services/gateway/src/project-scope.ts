import { createError, errors } from '@spoor/http';
import { rawFieldsRead } from '@spoor/rules';
import {
  isProjectRole,
  isVerifiedProject,
  normalizeOrigin,
  roleAtLeast,
  type ProjectRecord,
  type ProjectRole,
} from '@spoor/schemas';
import type { Store } from '@spoor/store';
import type { Principal } from './auth-guard.js';

/** A project the caller is a member of, with the caller's role on it. */
export interface Membership {
  project: ProjectRecord;
  role: ProjectRole;
}

/**
 * The project a request names, if the caller is a member of it with at least `role` (issue 45;
 * docs/security.md, Roles). Unknown, malformed, or a project the caller is not a member of —
 * another account's, one it was removed from, one it is only invited to — answers the same 404
 * (DESIGN.md: identical for "exists but belongs to another account"), so a token cannot probe
 * what others registered; a member below `role` gets 403 `role_required`. `role` defaults to the
 * one the operation declares (operation-route.ts puts it on the principal); routes that are not
 * operations (the live stream, an export's file) pass it.
 */
export async function scopedProject(
  store: Store,
  principal: Principal,
  origin: string,
  project: string,
  role?: ProjectRole,
): Promise<ProjectRecord> {
  return (await scopedMembership(store, principal, origin, project, role)).project;
}

/** scopedProject, answering the caller's role too. */
export async function scopedMembership(
  store: Store,
  principal: Principal,
  origin: string,
  project: string,
  role: ProjectRole | undefined = neededRole(principal),
): Promise<Membership> {
  const normalized = normalizeOrigin(origin);
  const found = normalized ? await store.projects.find(normalized, project) : null;
  if (!found) throw errors.notFound('Project not found');
  return { project: found, role: await memberRole(store, principal, found, role) };
}

/** The caller's role on `project` if it is at least `needed`; else 404 for a non-member, 403 for a member below it. */
export async function memberRole(
  store: Store,
  principal: Principal,
  project: ProjectRecord,
  needed: ProjectRole,
): Promise<ProjectRole> {
  const member = await store.members.get(project.project_id, principal.account_id);
  if (!member) throw errors.notFound('Project not found');
  if (!roleAtLeast(member.role, needed)) throw createError('role_required', needed, member.role);
  return member.role;
}

/** An admin may act only on, and only grant, roles below admin; an owner on any (members, invitations). */
export function requireManageable(caller: ProjectRole, ...roles: ProjectRole[]): void {
  if (caller === 'owner') return;
  if (roles.some((r) => roleAtLeast(r, 'admin'))) throw createError('role_required', 'owner', caller);
}

/** An operation that reaches a project must declare a project role: anything else is a bug, refused (500) rather than let through. */
function neededRole(principal: Principal): ProjectRole {
  if (isProjectRole(principal.needs)) return principal.needs;
  throw new Error(`an operation with role ${String(principal.needs)} reached a project`);
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
