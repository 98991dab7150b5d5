import { createHash, randomBytes } from 'node:crypto';
import type { ChannelCaps } from '@spoor/config';
import { errors } from '@spoor/http';
import type { Logger } from '@spoor/service-log';
import { renderRecipientConfirmation, type EmailSender } from '@spoor/notify';
import {
  RECORD_KINDS,
  RecipientConfirmed,
  RecipientConfirmQuery,
  type ChannelData,
  type ProjectRecord,
  type RecipientTokenData,
} from '@spoor/schemas';
import type { Store } from '@spoor/store';
import { defineOperation, type RouteContext } from '../operation-route.js';

/** How long a confirmation link works. */
const CONFIRM_DAYS = 7;
const DAY_MS = 86_400_000;

export interface RecipientDeps {
  store: Store;
  /** Null without SPOOR_SMTP_URL: confirmations are recorded as not sent, with the reason. */
  mailer: EmailSender | null;
  /** Where links point: SPOOR_PUBLIC_URL, else the address the server listens on. */
  publicUrl: string;
  caps: ChannelCaps;
  clock: () => number;
  logger: Logger;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/**
 * Email channels cannot make Spoor a spam relay (issue 13): a project holds a capped number of
 * channels and addresses, every new address gets one confirmation mail, and digests and alerts go
 * only to addresses that followed its link. A token is `<project_id>.<random>`: the project part
 * finds the record, the stored SHA-256 of the whole token proves it.
 */
export class ChannelRecipients {
  constructor(private readonly deps: RecipientDeps) {}

  /** 422 when the new channel would pass a cap. */
  async checkCaps(project: ProjectRecord, recipients: string[]): Promise<void> {
    const { caps, store } = this.deps;
    const channels = (
      await store.records.list<ChannelData>(RECORD_KINDS.channel, project.project_id, {
        limit: caps.channelsPerProject + 1,
      })
    ).map((r) => r.data);
    if (channels.length >= caps.channelsPerProject) {
      throw errors.validation([
        {
          loc: ['body'],
          msg: `A project has at most ${caps.channelsPerProject} notification channels; delete one first`,
          type: 'value_error',
        },
      ]);
    }
    const unique = new Set(recipients.map((a) => a.toLowerCase()));
    if (unique.size > caps.recipientsPerChannel) {
      throw errors.validation([
        {
          loc: ['body', 'recipients'],
          msg: `A channel has at most ${caps.recipientsPerChannel} recipients`,
          type: 'too_long',
        },
      ]);
    }
    const all = new Set([...channels.flatMap((c) => c.recipients.map((a) => a.toLowerCase())), ...unique]);
    if (all.size > caps.recipientsPerProject) {
      throw errors.validation([
        {
          loc: ['body', 'recipients'],
          msg: `A project's channels reach at most ${caps.recipientsPerProject} addresses in all`,
          type: 'too_long',
        },
      ]);
    }
  }

  /** Records a token per address and mails each its link once, in the background (SMTP is slow). */
  async invite(project: ProjectRecord, channel: ChannelData): Promise<void> {
    const now = this.deps.clock();
    const invites = channel.recipients.map((address) => ({
      address,
      token: `${project.project_id}.${randomBytes(24).toString('base64url')}`,
    }));
    const rows = invites.map(({ address, token }) =>
      this.tokenRow(
        project,
        sha256(token),
        {
          channel_id: channel.channel_id,
          address,
          expires_at: now + CONFIRM_DAYS * DAY_MS,
          mailed_at: null,
          mail_error: null,
        },
        now,
      ),
    );
    await this.deps.store.records.put(rows);
    void Promise.all(
      invites.map((invite, i) => this.mail(project, channel, invite.address, invite.token, rows[i]!)),
    ).catch((err: unknown) => this.deps.logger.error('confirmation mail failed', { err }));
  }

  /** Marks the token's address confirmed on its channel; 404 for an unknown, used-up or expired token. */
  async confirm(token: string): Promise<{ address: string; channel: string }> {
    const { store, clock } = this.deps;
    const projectId = token.split('.')[0] ?? '';
    const found = projectId
      ? await store.records.get<RecipientTokenData>(RECORD_KINDS.recipientToken, projectId, sha256(token))
      : null;
    if (!found || found.data.expires_at < clock()) throw errors.notFound('Unknown or expired confirmation link');
    const channel = await store.records.get<ChannelData>(RECORD_KINDS.channel, projectId, found.data.channel_id);
    if (!channel) throw errors.notFound('Unknown or expired confirmation link');
    const confirmed = [...new Set([...(channel.data.confirmed ?? []), found.data.address])];
    const now = Math.max(clock(), channel.updated_at + 1);
    await store.records.put([{ ...channel, data: { ...channel.data, confirmed }, updated_at: now }]);
    return { address: found.data.address, channel: channel.data.name };
  }

  private tokenRow(project: ProjectRecord, id: string, data: RecipientTokenData, now: number) {
    return {
      kind: RECORD_KINDS.recipientToken,
      project_id: project.project_id,
      id,
      parent_id: data.channel_id,
      sort_key: now,
      data,
      updated_at: now,
      deleted: false,
    };
  }

  private async mail(
    project: ProjectRecord,
    channel: ChannelData,
    address: string,
    token: string,
    row: ReturnType<ChannelRecipients['tokenRow']>,
  ): Promise<void> {
    const link = `${this.deps.publicUrl.replace(/\/$/, '')}/v1/recipients/confirm?token=${encodeURIComponent(token)}`;
    const message = renderRecipientConfirmation({
      project: `${project.project} (${project.origin})`,
      channel: channel.name,
      link,
      expiresInDays: CONFIRM_DAYS,
    });
    const outcome = this.deps.mailer
      ? await this.deps.mailer.send([address], message)
      : { ok: false, error: 'Email is not configured: set SPOOR_SMTP_URL' };
    const now = this.deps.clock();
    const data = { ...row.data, mailed_at: outcome.ok ? now : null, mail_error: outcome.ok ? null : outcome.error };
    await this.deps.store.records.put([{ ...row, data, updated_at: Math.max(now, row.updated_at + 1) }]);
  }
}

/** GET /v1/recipients/confirm: the link of a confirmation mail (no credentials: the token is the proof). */
export function recipientRoutes(ctx: RouteContext, recipients: ChannelRecipients): void {
  defineOperation(
    ctx,
    {
      method: 'get',
      path: '/v1/recipients/confirm',
      summary: 'Confirms an email recipient from the link of its confirmation mail',
      tag: 'outbound',
      auth: false,
      role: 'public',
      query: RecipientConfirmQuery,
      response: RecipientConfirmed,
      failures: ['not_found'],
    },
    async ({ query }) => {
      const { address, channel } = await recipients.confirm(query.token);
      return { confirmed: true as const, address, channel };
    },
  );
}
