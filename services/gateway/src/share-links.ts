// Share links kept as records (issue 45, item 3; docs/security.md, Share links): one record of
// kind `share-link` per link in its project (listed, deleted with the project), and one of kind
// `share-token` under project '' keyed by the SHA-256 of the token, since a public request
// arrives with the token alone. The link is the secret: only its hash is stored.
import { createHash, createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { hashPassword } from '@spoor/auth';
import { createError } from '@spoor/http';
import {
  RECORD_KINDS,
  SHARE_LIMITS,
  type ProjectRecord,
  type ShareItem,
  type ShareLinkData,
  type ShareTokenData,
} from '@spoor/schemas';
import type { StoredRecord, Store } from '@spoor/store';

const hashOf = (token: string) => createHash('sha256').update(token).digest('hex');

export const shareItem = (d: ShareLinkData): ShareItem => ({
  share_id: d.share_id,
  label: d.label,
  has_password: d.password_hash !== null,
  created_by: d.created_by,
  created_at: d.created_at,
});

export interface SharedLink {
  project: ProjectRecord;
  link: ShareLinkData;
}

export class ShareLinks {
  constructor(
    private readonly store: Store,
    private readonly clock: () => number,
  ) {}

  /** Makes a link; answers it with its token, which is never stored (only its hash). */
  async create(
    projectId: string,
    label: string,
    password: string | null,
    createdBy: string,
  ): Promise<{ link: ShareLinkData; token: string }> {
    const token = randomBytes(32).toString('base64url');
    const now = this.clock();
    const link: ShareLinkData = {
      share_id: randomUUID(),
      label,
      token_hash: hashOf(token),
      password_hash: password === null ? null : await hashPassword(password),
      grant_key: randomBytes(32).toString('base64url'),
      created_by: createdBy,
      created_at: now,
    };
    await this.store.records.put<ShareLinkData | ShareTokenData>([
      this.#record(RECORD_KINDS.shareLink, projectId, link.share_id, link, false),
      this.#record(
        RECORD_KINDS.shareToken,
        '',
        link.token_hash,
        { project_id: projectId, share_id: link.share_id },
        false,
        projectId,
      ),
    ]);
    return { link, token };
  }

  /** The project's links, newest first. */
  async list(projectId: string): Promise<ShareLinkData[]> {
    const found = await this.store.records.list<ShareLinkData>(RECORD_KINDS.shareLink, projectId, { limit: 1000 });
    return found.map((r) => r.data);
  }

  /** Revokes a link: both records go. Answers the link, or null when the project has no such link. */
  async revoke(projectId: string, shareId: string): Promise<ShareLinkData | null> {
    const found = await this.store.records.get<ShareLinkData>(RECORD_KINDS.shareLink, projectId, shareId);
    if (!found || found.deleted) return null;
    const link = found.data;
    await this.store.records.put<ShareLinkData | ShareTokenData>([
      this.#record(RECORD_KINDS.shareLink, projectId, shareId, link, true),
      this.#record(
        RECORD_KINDS.shareToken,
        '',
        link.token_hash,
        { project_id: projectId, share_id: shareId },
        true,
        projectId,
      ),
    ]);
    return link;
  }

  /** The live link a token opens and its project; 404 share_link_invalid otherwise (revoked, project deleted). */
  async open(token: string): Promise<SharedLink> {
    const index = await this.store.records.get<ShareTokenData>(RECORD_KINDS.shareToken, '', hashOf(token));
    if (!index || index.deleted) throw createError('share_link_invalid');
    const { project_id, share_id } = index.data;
    const [project, found] = await Promise.all([
      this.store.projects.get(project_id),
      this.store.records.get<ShareLinkData>(RECORD_KINDS.shareLink, project_id, share_id),
    ]);
    if (!project || !found || found.deleted || found.data.token_hash !== index.id)
      throw createError('share_link_invalid');
    return { project, link: found.data };
  }

  /** A token's record (project '') names its project as parent: the project's deletion takes it too. */
  #record<T>(kind: string, projectId: string, id: string, data: T, deleted: boolean, parent = ''): StoredRecord<T> {
    const now = this.clock();
    return { kind, project_id: projectId, id, parent_id: parent, sort_key: now, data, updated_at: now, deleted };
  }
}

const mac = (link: ShareLinkData, expiresAt: number) =>
  createHmac('sha256', Buffer.from(link.grant_key, 'base64url'))
    .update(`${link.share_id}.${expiresAt}`)
    .digest('base64url');

/** A grant after the right password: `<expiry ms>.<HMAC-SHA256 of share id and expiry under the link's own key>`. */
export function signGrant(link: ShareLinkData, now: number): { grant: string; expires_at: number } {
  const expiresAt = now + SHARE_LIMITS.grantMs;
  return { grant: `${expiresAt}.${mac(link, expiresAt)}`, expires_at: expiresAt };
}

/** Whether `grant` is one of this link's, not expired. */
export function grantValid(link: ShareLinkData, grant: string, now: number): boolean {
  const match = /^(\d{1,16})\.([A-Za-z0-9_-]{43})$/.exec(grant);
  if (!match) return false;
  const expiresAt = Number(match[1]);
  if (expiresAt <= now || expiresAt > now + SHARE_LIMITS.grantMs) return false;
  const want = Buffer.from(mac(link, expiresAt));
  const got = Buffer.from(match[2]!);
  return want.length === got.length && timingSafeEqual(want, got);
}
