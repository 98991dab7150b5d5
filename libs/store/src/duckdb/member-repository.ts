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
import type { DuckDbConnection, DuckReader } from './duckdb-connection.js';

/**
 * project_members PRIMARY KEY (project_id, account_id), project_invitations PRIMARY KEY
 * invitation_id with token_hash UNIQUE (migrations.ts, step 12). `change` and `takeInvitation`
 * read and write on the one writer, so the last owner check and the one-time use hold.
 */
export class DuckDbMemberRepository implements MemberRepository {
  constructor(
    private readonly writer: DuckDbConnection,
    private readonly reader: DuckReader,
  ) {}

  async put(m: MemberRecord): Promise<void> {
    await this.writer.run(
      `INSERT INTO project_members (${MEMBER_COLUMNS}) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (project_id, account_id) DO UPDATE SET role = excluded.role, updated_at = excluded.updated_at`,
      [m.project_id, m.account_id, m.role, m.created_at, m.updated_at],
    );
  }

  async get(projectId: string, accountId: string): Promise<MemberRecord | null> {
    const [row] = await this.reader.all(
      `SELECT ${MEMBER_COLUMNS} FROM project_members WHERE project_id = $1 AND account_id = $2`,
      [projectId, accountId],
    );
    return row ? rowToMember(row) : null;
  }

  async list(projectId: string): Promise<MemberRecord[]> {
    const rows = await this.reader.all(
      `SELECT ${MEMBER_COLUMNS} FROM project_members WHERE project_id = $1 ORDER BY ${ROLE_ORDER_SQL}`,
      [projectId],
    );
    return rows.map(rowToMember);
  }

  async ofAccount(accountId: string): Promise<MemberRecord[]> {
    const rows = await this.reader.all(
      `SELECT ${MEMBER_COLUMNS} FROM project_members WHERE account_id = $1 ORDER BY created_at, project_id`,
      [accountId],
    );
    return rows.map(rowToMember);
  }

  async change(projectId: string, accountId: string, role: ProjectRole | null, at: number): Promise<MemberChange> {
    return this.writer.exclusive(async (x) => {
      const [row] = await x.all('SELECT role FROM project_members WHERE project_id = $1 AND account_id = $2', [
        projectId,
        accountId,
      ]);
      if (!row) return 'not_member';
      if (row.role === 'owner' && role !== 'owner') {
        const [owners] = await x.all(
          "SELECT count(*)::INTEGER AS n FROM project_members WHERE project_id = $1 AND role = 'owner'",
          [projectId],
        );
        if (Number(owners?.n ?? 0) <= 1) return 'last_owner';
      }
      if (role === null)
        await x.run('DELETE FROM project_members WHERE project_id = $1 AND account_id = $2', [projectId, accountId]);
      else
        await x.run('UPDATE project_members SET role = $3, updated_at = $4 WHERE project_id = $1 AND account_id = $2', [
          projectId,
          accountId,
          role,
          at,
        ]);
      return 'changed';
    });
  }

  async invite(i: InvitationRecord): Promise<void> {
    await this.writer.exclusive(async (x) => {
      await x.run('DELETE FROM project_invitations WHERE project_id = $1 AND expires_at <= $2', [
        i.project_id,
        i.created_at,
      ]);
      await x.run(`INSERT INTO project_invitations (${INVITATION_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`, [
        i.invitation_id,
        i.project_id,
        i.email,
        i.role,
        i.token_hash,
        i.invited_by,
        i.created_at,
        i.expires_at,
      ]);
    });
  }

  async invitations(projectId: string, now: number): Promise<InvitationRecord[]> {
    const rows = await this.reader.all(
      `SELECT ${INVITATION_COLUMNS} FROM project_invitations WHERE project_id = $1 AND expires_at > $2
       ORDER BY created_at DESC, invitation_id`,
      [projectId, now],
    );
    return rows.map(rowToInvitation);
  }

  async revokeInvitation(projectId: string, invitationId: string): Promise<boolean> {
    const rows = await this.writer.all(
      'DELETE FROM project_invitations WHERE project_id = $1 AND invitation_id = $2 RETURNING invitation_id',
      [projectId, invitationId],
    );
    return rows.length > 0;
  }

  async takeInvitation(tokenHash: string, now: number): Promise<InvitationRecord | null> {
    const rows = await this.writer.all(
      `DELETE FROM project_invitations WHERE token_hash = $1 RETURNING ${INVITATION_COLUMNS}`,
      [tokenHash],
    );
    const [row] = rows;
    if (!row) return null;
    const taken = rowToInvitation(row);
    return taken.expires_at > now ? taken : null;
  }
}
