// A viewer's grant to export (issue 45, item 1; docs/security.md, Roles): a record of kind
// `export-grant` per granted member, made and withdrawn by an owner or admin, gone when the member
// leaves or is removed, and with the project. An editor or above exports without one.
import { createError } from '@spoor/http';
import { RECORD_KINDS, roleAtLeast, type ExportGrantData, type ProjectRecord, type ProjectRole } from '@spoor/schemas';
import type { Store } from '@spoor/store';
import type { Principal } from './auth-guard.js';
import { scopedMembership, memberRole } from './project-scope.js';

export async function hasExportGrant(store: Store, projectId: string, accountId: string): Promise<boolean> {
  const found = await store.records.get<ExportGrantData>(RECORD_KINDS.exportGrant, projectId, accountId);
  return found !== null && !found.deleted;
}

/** The account ids of the project's granted members (a project has a handful of members). */
export async function exportGrantees(store: Store, projectId: string): Promise<Set<string>> {
  const grants = await store.records.list<ExportGrantData>(RECORD_KINDS.exportGrant, projectId, { limit: 10_000 });
  return new Set(grants.map((g) => g.id));
}

/** Grants (`on`) or withdraws a viewer's exports. */
export async function setExportGrant(
  store: Store,
  projectId: string,
  accountId: string,
  on: boolean,
  grantedBy: string,
  now: number,
): Promise<void> {
  await store.records.put<ExportGrantData>([
    {
      kind: RECORD_KINDS.exportGrant,
      project_id: projectId,
      id: accountId,
      parent_id: '',
      sort_key: now,
      data: { granted_by: grantedBy, granted_at: now },
      updated_at: now,
      deleted: !on,
    },
  ]);
}

/** Whether a member of `role` may export: an editor or above, a viewer with a grant. */
export const exportsAllowed = (role: ProjectRole, granted: boolean): boolean =>
  roleAtLeast(role, 'editor') || (role === 'viewer' && granted);

async function mayExport(store: Store, projectId: string, accountId: string, role: ProjectRole): Promise<boolean> {
  return roleAtLeast(role, 'editor') || exportsAllowed(role, await hasExportGrant(store, projectId, accountId));
}

function refuse(role: ProjectRole): never {
  throw createError('role_required', 'editor', role);
}

/** The project an export names, if the caller may export from it: 404 for a non-member, 403 `role_required` otherwise. */
export async function exportingProject(
  store: Store,
  principal: Principal,
  origin: string,
  project: string,
): Promise<ProjectRecord> {
  const m = await scopedMembership(store, principal, origin, project, 'viewer');
  if (!(await mayExport(store, m.project.project_id, principal.account_id, m.role))) refuse(m.role);
  return m.project;
}

/** The same check on a project already found (an export's file). */
export async function requireExporter(store: Store, principal: Principal, project: ProjectRecord): Promise<void> {
  const role = await memberRole(store, principal, project, 'viewer');
  if (!(await mayExport(store, project.project_id, principal.account_id, role))) refuse(role);
}
