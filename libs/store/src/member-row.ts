import { isProjectRole, type ProjectRole } from '@spoor/schemas';
import { toInt, toStr } from './column-values.js';
import type { InvitationRecord, MemberRecord } from './members.js';

type Row = Record<string, unknown>;

function roleOf(v: unknown): ProjectRole {
  if (!isProjectRole(v)) throw new TypeError(`expected a project role, got ${String(v)}`);
  return v;
}

export function rowToMember(r: Row): MemberRecord {
  return {
    project_id: toStr(r.project_id),
    account_id: toStr(r.account_id),
    role: roleOf(r.role),
    created_at: toInt(r.created_at),
    updated_at: toInt(r.updated_at),
  };
}

export function rowToInvitation(r: Row): InvitationRecord {
  return {
    invitation_id: toStr(r.invitation_id),
    project_id: toStr(r.project_id),
    email: toStr(r.email),
    role: roleOf(r.role),
    token_hash: toStr(r.token_hash),
    invited_by: toStr(r.invited_by),
    created_at: toInt(r.created_at),
    expires_at: toInt(r.expires_at),
  };
}
