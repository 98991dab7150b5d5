import { api, ApiError, ok, waitForJob } from '../api-access.js';
import { h, replace, statusLine, whileBusy } from '../dom-builder.js';
import { formatTime } from '../display-format.js';
import type { Page } from '../page-context.js';
import { topTransitions, transitionHeatmap } from '../transition-heatmap.js';

/** The latest transition matrix of the project, and a button that computes one for the last day. */
export const transitionsPage: Page = async (ctx) => {
  const status = statusLine();
  const body = h('div', {});
  async function load(): Promise<void> {
    try {
      const m = await ok(api().GET('/v1/transitions', { params: { query: ctx.scope } }));
      replace(
        body,
        h(
          'p',
          { class: 'muted' },
          `Window ${formatTime(m.window_start)} – ${formatTime(m.window_end)}, ${m.sessions} sessions.`,
        ),
        transitionHeatmap(m),
        h('h2', {}, 'Most frequent steps'),
        topTransitions(m),
      );
    } catch (err) {
      if (!(err instanceof ApiError && err.status === 404)) throw err;
      replace(body, h('p', { class: 'empty' }, 'No transition matrix yet: compute one.'));
    }
  }
  const compute = h(
    'button',
    {
      type: 'button',
      onclick: () =>
        whileBusy(compute, status, 'Computing…', 'Computed.', async () => {
          const { job_id } = await ok(api().POST('/v1/trigger/transitions', { body: { ...ctx.scope } }));
          await waitForJob(job_id, 'Transitions');
          await load();
        }),
    },
    'Compute for the last 24 hours',
  );
  await load();
  replace(ctx.main, h('h1', { tabindex: -1 }, 'Transitions'), h('div', { class: 'toolbar' }, compute), status, body);
};
