import { JobFailure, type JobHandler } from '@spoor/jobs';
import { renderAlert, renderDigest } from '@spoor/notify';
import type { Store } from '@spoor/store';
import type { ChannelSender } from './channel-sender.js';
import { digestFunnels } from './digest-funnels.js';
import { jobWindow } from './job-window.js';
import { buildOverview } from './overview-builder.js';
import { projectOf } from './result-jobs.js';
import type { WebhookOutbox } from './webhook-outbox.js';

export interface NotificationJobDeps {
  store: Store;
  clock: () => number;
  sender: ChannelSender;
  outbox: WebhookOutbox;
  dashboardUrl: string | null;
}

const pct = (x: number) => `${Math.round(x * 1000) / 10} %`;

/**
 * POST /v1/trigger/notification: builds the window's digest (stored as its overview, announced
 * as digest.created; with the project's newest saved funnels over the window) and sends it to the
 * named channels, or every channel of the project. Kind
 * `alert` sends the headline figures as a short alert instead of the whole digest. A job with no
 * channel to send to, or whose every send failed, fails and says why.
 */
export function notificationJob(deps: NotificationJobDeps): JobHandler {
  return async (job) => {
    const project = await projectOf(deps.store, job.project_id);
    const req = job.request as { kind?: 'digest' | 'alert'; channels?: string[] };
    const channels = await deps.sender.channels(project, req.channels);
    if (channels.length === 0)
      throw new JobFailure(
        req.channels
          ? 'None of the named channels exists in this project'
          : 'The project has no notification channels; create one with POST /v1/channels',
      );
    const w = jobWindow(job);
    const overview = await buildOverview(deps.store, project, w, job.job_id, deps.clock());
    await deps.outbox.emit(project, 'digest.created', { overview });
    const dashboardUrl = deps.dashboardUrl ?? undefined;
    const msg =
      req.kind === 'alert'
        ? renderAlert({
            title: `Activity of ${project.project}`,
            origin: project.origin,
            project: project.project,
            at: w.end,
            dashboardUrl,
            lines: [
              `${overview.sessions} sessions, ${overview.events} events, ${overview.visitors} visitors`,
              `Bounce rate ${pct(overview.bounce_rate)}`,
            ],
          })
        : renderDigest(overview, { dashboardUrl, funnels: await digestFunnels(deps.store, project, w) });
    const outcomes = await deps.sender.send(
      project,
      channels.map((c) => c.channel_id),
      msg,
    );
    if (outcomes.every((o) => !o.ok))
      throw new JobFailure(
        `Every channel failed: ${outcomes.map((o) => `${o.channel_id} (${o.kind}): ${o.error}`).join('; ')}`,
      );
    return {
      window_start: w.start,
      window_end: w.end,
      sessions: overview.sessions,
      events: overview.events,
      channels: outcomes,
    };
  };
}
