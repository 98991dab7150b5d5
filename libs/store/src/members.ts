// Members and invitations of a project (issue 45; docs/security.md, Roles). A project keeps at
// least one owner: `change` is the one way to demote or remove a member, and refuses to leave
// none (`last_owner`). Every project has an owner membership from the moment it is created
// (ProjectRepository.create writes it), and migration step 12 gave every older project one for
// its `account_id`.
import type { ProjectRole } from '@spoor/schemas';

export interface MemberRecord {
  project_id: string;
  account_id: string;
  role: ProjectRole;
  created_at: number;
  updated_at: number;
}

export interface InvitationRecord {
  invitation_id: string;
  project_id: string;
  /** Where the mail went; the account that accepts it need not have this email (docs/security.md). */
  email: string;
  role: ProjectRole;
  /** SHA-256 of the token in the link, hex: the token itself is never stored. */
  token_hash: string;
  /** The account that invited. */
  invited_by: string;
  created_at: number;
  expires_at: number;
}

/** What `change` did: `last_owner` when it would have left the project without an owner (nothing changed). */
export type MemberChange = 'changed' | 'not_member' | 'last_owner';

export interface MemberRepository {
  /** Adds a member, or sets the role of one (used to add: a demotion goes through `change`). */
  put(m: MemberRecord): Promise<void>;
  get(projectId: string, accountId: string): Promise<MemberRecord | null>;
  /** The project's members: owners first, then admins, editors, viewers; each by created_at, then account_id. */
  list(projectId: string): Promise<MemberRecord[]>;
  /** Every membership of an account, by created_at, then project_id. */
  ofAccount(accountId: string): Promise<MemberRecord[]>;
  /**
   * Sets the member's role, or removes the member (`role` null), unless that leaves the project
   * without an owner. DuckDB checks and writes on its one writer; ClickHouse reads then writes,
   * so two owners demoting each other at the same moment could both pass (docs/security.md).
   */
  change(projectId: string, accountId: string, role: ProjectRole | null, at: number): Promise<MemberChange>;
  /** Records an invitation; drops the project's expired ones on the way. */
  invite(i: InvitationRecord): Promise<void>;
  /** The project's invitations not expired at `now`, newest first. */
  invitations(projectId: string, now: number): Promise<InvitationRecord[]>;
  /** Revokes one; false when the project has no such invitation. */
  revokeInvitation(projectId: string, invitationId: string): Promise<boolean>;
  /** Takes (deletes and answers) the invitation with this token hash if it has not expired at `now`: once only. */
  takeInvitation(tokenHash: string, now: number): Promise<InvitationRecord | null>;
}

/** The order `list` answers in. */
export const ROLE_ORDER_SQL =
  "CASE role WHEN 'owner' THEN 0 WHEN 'admin' THEN 1 WHEN 'editor' THEN 2 ELSE 3 END, created_at, account_id";

export const MEMBER_COLUMNS = 'project_id, account_id, role, created_at, updated_at';
export const INVITATION_COLUMNS =
  'invitation_id, project_id, email, role, token_hash, invited_by, created_at, expires_at';

/**
 * What deleting an account does to each project it is a member of (issue 45, item 6): a project
 * it is the only member of goes with it (`remove`); one it is not the last owner of, or not an
 * owner of, keeps going without it (`leave`); one it is the last owner of while others are
 * members `blocks` the deletion until ownership is transferred.
 */
export async function accountProjects(
  members: MemberRepository,
  accountId: string,
): Promise<{ remove: string[]; leave: string[]; blocks: string[] }> {
  const out = { remove: [] as string[], leave: [] as string[], blocks: [] as string[] };
  for (const m of await members.ofAccount(accountId)) {
    const all = await members.list(m.project_id);
    const others = all.filter((x) => x.account_id !== accountId);
    if (others.length === 0) out.remove.push(m.project_id);
    else if (m.role !== 'owner' || others.some((x) => x.role === 'owner')) out.leave.push(m.project_id);
    else out.blocks.push(m.project_id);
  }
  return out;
}
