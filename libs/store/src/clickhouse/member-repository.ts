import type { ProjectRole } from '@spoor/schemas';
import {
  INVITATION_COLUMNS,
  MEMBER_COLUMNS,
  ROLE_ORDER_SQL,
  type InvitationRecord,
  type MemberChange,
  type MemberRecord,
  type MemberRepository,
} from '../members.js';
import { rowToInvitation, rowToMember } from '../member-row.js';
import type { ClickHouseConnection, Params } from './clickhouse-connection.js';

/**
 * project_members ORDER BY (project_id, account_id) and project_invitations ORDER BY
 * (project_id, invitation_id), both ReplacingMergeTree(_written): the last write wins, a removed
 * member is a tombstone row (`removed`), a revoked, used or expired invitation is deleted (a
 * lightweight DELETE: its email leaves at once), and reads use FINAL (migrations.ts, step 12). Both tables are small, so the reads by account and by token hash are scans. Without
 * transactions, `change` reads then writes and `takeInvitation` reads then tombstones: the
 * gateway takes a project's changes one at a time under a KV key (member-lock.ts), so two owners
 * demoting each other cannot both pass; two accepts of one link in the same instant still could.
 */
export class ClickHouseMemberRepository implements MemberRepository {
  constructor(private readonly ch: ClickHouseConnection) {}

  async put(m: MemberRecord): Promise<void> {
    await this.ch.insert('project_members', [{ ...m, removed: false }]);
  }

  async get(projectId: string, accountId: string): Promise<MemberRecord | null> {
    const [row] = await this.members('project_id = {p:String} AND account_id = {a:String}', {
      p: projectId,
      a: accountId,
    });
    return row ?? null;
  }

  list(projectId: string): Promise<MemberRecord[]> {
    return this.members('project_id = {p:String}', { p: projectId }, ROLE_ORDER_SQL);
  }

  ofAccount(accountId: string): Promise<MemberRecord[]> {
    return this.members('account_id = {a:String}', { a: accountId }, 'created_at, project_id');
  }

  async change(projectId: string, accountId: string, role: ProjectRole | null, at: number): Promise<MemberChange> {
    const current = await this.get(projectId, accountId);
    if (!current) return 'not_member';
    if (current.role === 'owner' && role !== 'owner') {
      const owners = (await this.list(projectId)).filter((m) => m.role === 'owner');
      if (owners.length <= 1) return 'last_owner';
    }
    await this.ch.insert('project_members', [
      { ...current, role: role ?? current.role, updated_at: at, removed: role === null },
    ]);
    return 'changed';
  }

  async invite(i: InvitationRecord): Promise<void> {
    await this.deleteInvitations('project_id = {p:String} AND expires_at <= {now:Int64}', {
      p: i.project_id,
      now: i.created_at,
    });
    await this.ch.insert('project_invitations', [{ ...i, removed: false }]);
  }

  async invitations(projectId: string, now: number): Promise<InvitationRecord[]> {
    return this.invitationRows(
      'project_id = {p:String} AND expires_at > {now:Int64}',
      { p: projectId, now },
      'created_at DESC, invitation_id',
    );
  }

  async revokeInvitation(projectId: string, invitationId: string): Promise<boolean> {
    const [found] = await this.invitationRows('project_id = {p:String} AND invitation_id = {i:String}', {
      p: projectId,
      i: invitationId,
    });
    if (!found) return false;
    await this.deleteInvitations('invitation_id = {i:String}', { i: invitationId });
    return true;
  }

  async takeInvitation(tokenHash: string, now: number): Promise<InvitationRecord | null> {
    const [found] = await this.invitationRows('token_hash = {h:String}', { h: tokenHash });
    if (!found) return null;
    await this.deleteInvitations('invitation_id = {i:String}', { i: found.invitation_id });
    return found.expires_at > now ? found : null;
  }

  /** A lightweight DELETE: the rows leave every read at once, the invited address with them. */
  private async deleteInvitations(where: string, params: Params): Promise<void> {
    await this.ch.command(`DELETE FROM ${this.ch.table('project_invitations')} WHERE ${where}`, params);
  }

  /** WHERE runs after FINAL, so only each key's last write is seen, tombstones dropped. */
  private async members(where: string, params: Params, orderBy = 'account_id'): Promise<MemberRecord[]> {
    const rows = await this.ch.rows(
      `SELECT ${MEMBER_COLUMNS} FROM ${this.ch.table('project_members')} FINAL
       WHERE NOT removed AND ${where} ORDER BY ${orderBy}`,
      params,
    );
    return rows.map(rowToMember);
  }

  private async invitationRows(where: string, params: Params, orderBy = 'invitation_id'): Promise<InvitationRecord[]> {
    const rows = await this.ch.rows(
      `SELECT ${INVITATION_COLUMNS} FROM ${this.ch.table('project_invitations')} FINAL
       WHERE NOT removed AND ${where} ORDER BY ${orderBy}`,
      params,
    );
    return rows.map(rowToInvitation);
  }
}
