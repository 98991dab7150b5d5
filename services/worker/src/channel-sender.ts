import type { Logger } from '@spoor/service-log';
import { EmailSender, sendChat } from '@spoor/notify';
import { RECORD_KINDS, type ChannelData, type NotificationMessage, type ProjectRecord } from '@spoor/schemas';
import type { Store } from '@spoor/store';
import { postJson } from '@spoor/webhooks';

export interface ChannelOutcome {
  channel_id: string;
  kind: ChannelData['kind'];
  ok: boolean;
  error: string | null;
}

export interface ChannelSenderDeps {
  store: Store;
  logger: Logger;
  /** Null without SPOOR_SMTP_URL: email channels then fail, saying so. */
  email: EmailSender | null;
  allowPrivate: boolean;
}

/** Sends one message to a project's channels: email through SMTP, chat through incoming webhooks (SSRF-guarded). */
export class ChannelSender {
  constructor(private readonly deps: ChannelSenderDeps) {}

  /** The project's channels, or the named ones among them. */
  async channels(project: ProjectRecord, ids: string[] | null | undefined): Promise<ChannelData[]> {
    const all = await this.deps.store.records.list<ChannelData>(RECORD_KINDS.channel, project.project_id, {
      limit: 1000,
    });
    const wanted = ids ? new Set(ids) : null;
    return all.map((r) => r.data).filter((c) => !wanted || wanted.has(c.channel_id));
  }

  async send(
    project: ProjectRecord,
    ids: string[] | null | undefined,
    msg: NotificationMessage,
  ): Promise<ChannelOutcome[]> {
    const channels = await this.channels(project, ids);
    return Promise.all(channels.map((c) => this.sendOne(c, msg)));
  }

  private async sendOne(c: ChannelData, msg: NotificationMessage): Promise<ChannelOutcome> {
    const done = (ok: boolean, error: string | null): ChannelOutcome => ({
      channel_id: c.channel_id,
      kind: c.kind,
      ok,
      error,
    });
    if (c.kind === 'email') {
      if (!this.deps.email) return done(false, 'Email is not configured: set SPOOR_SMTP_URL');
      // Only addresses that followed their confirmation link get mail (issue 13).
      const confirmed = new Set(c.confirmed ?? []);
      const to = c.recipients.filter((a) => confirmed.has(a));
      if (to.length === 0)
        return done(false, 'No confirmed recipient: each address must follow the link in its confirmation mail');
      const r = await this.deps.email.send(to, msg);
      return done(r.ok, r.error);
    }
    const post = async (url: string, body: string) => {
      const o = await postJson(url, body, { allowPrivate: this.deps.allowPrivate, userAgent: 'Spoor-Notifications/1' });
      return { ok: o.ok, status: o.status, error: o.error ?? (o.ok ? null : `HTTP ${o.status}`) };
    };
    const r = await sendChat(post, c.url!, c.kind, msg);
    if (!r.ok) this.deps.logger.warn('chat notification failed', { channel: c.channel_id, error: r.error });
    return done(r.ok, r.error);
  }
}
