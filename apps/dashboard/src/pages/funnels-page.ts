import type { components } from '@spoor/client';
import { api, ok } from '../api-access.js';
import { field, h, replace, showError, showInfo, statusLine } from '../dom-builder.js';
import { formatTime } from '../display-format.js';
import { funnelBuilder, type FunnelBuilder, type FunnelDefinition } from '../funnel-builder.js';
import { breakdownTable, funnelChart, funnelTable } from '../funnel-chart.js';
import type { Page, PageContext } from '../page-context.js';

type SavedFunnel = components['schemas']['SavedFunnel'];

/** The builder's definition, or null when a step's own JSON is wrong (the step says so). */
function definition(builder: FunnelBuilder, status: HTMLElement): FunnelDefinition | null {
  try {
    return builder.read();
  } catch {
    showError(status, 'A step needs fixing: see the message under it.');
    return null;
  }
}

/** The saved funnels, each with Open (into the builder, then run) and Delete. */
function savedList(
  ctx: PageContext,
  funnels: SavedFunnel[],
  open: (f: SavedFunnel) => void,
  changed: () => void,
  status: HTMLElement,
): HTMLElement {
  if (!funnels.length) return h('p', { class: 'empty' }, 'No saved funnel yet.');
  return h(
    'ul',
    { class: 'saved-funnels' },
    funnels.map((f) =>
      h(
        'li',
        {},
        h('strong', {}, f.name),
        h('span', { class: 'muted' }, `${f.steps.length} steps, saved ${formatTime(f.created_at)}`),
        h(
          'button',
          { type: 'button', class: 'secondary small', 'aria-label': `Open ${f.name}`, onclick: () => open(f) },
          'Open',
        ),
        h(
          'button',
          {
            type: 'button',
            class: 'secondary small',
            'aria-label': `Delete ${f.name}`,
            onclick: async () => {
              try {
                await ok(
                  api().DELETE('/v1/funnels/{funnel_id}', {
                    params: { path: { funnel_id: f.funnel_id }, query: ctx.scope },
                  }),
                );
                showInfo(status, `Deleted ${f.name}.`);
                changed();
              } catch (err) {
                showError(status, (err as Error).message);
              }
            },
          },
          'Delete',
        ),
      ),
    ),
  );
}

/** What the page's buttons work on: the builder, its status and messages, the result and the name box. */
interface FunnelForm {
  ctx: PageContext;
  builder: FunnelBuilder;
  status: HTMLElement;
  messages: HTMLElement;
  result: HTMLElement;
  name: HTMLInputElement;
}

/** Runs the builder's funnel: the chart and tables, or the API's 422 by the step it names. */
async function run(f: FunnelForm): Promise<void> {
  const def = definition(f.builder, f.status);
  if (!def) return;
  replace(f.messages);
  showInfo(f.status, 'Counting…');
  try {
    const r = await ok(api().POST('/v1/funnels/query', { body: { ...f.ctx.scope, ...def } }));
    replace(
      f.result,
      funnelChart(r),
      funnelTable(r.steps, `Per step, ${formatTime(r.window_start)} – ${formatTime(r.window_end)}`),
      breakdownTable(r),
    );
    showInfo(f.status, `Counted ${r.unit}s (evaluated in ${r.evaluated_in === 'sql' ? 'SQL' : 'TypeScript'}).`);
  } catch (err) {
    // No answer for this definition: an older one's figures below would be misread as its.
    replace(f.result);
    f.builder.showIssues(err, f.messages);
    showError(f.status, 'The funnel was refused.');
  }
}

/** Saves the builder's funnel (without the window: a saved funnel is run over any window); true when saved. */
async function save(f: FunnelForm): Promise<boolean> {
  const def = definition(f.builder, f.status);
  if (!def) return false;
  replace(f.messages);
  const { window_start: _s, window_end: _e, ...rest } = def;
  try {
    const saved = await ok(api().POST('/v1/funnels', { body: { ...f.ctx.scope, ...rest, name: f.name.value.trim() } }));
    showInfo(f.status, `Saved ${saved.name}.`);
    return true;
  } catch (err) {
    f.builder.showIssues(err, f.messages);
    showError(f.status, 'The funnel was not saved.');
    return false;
  }
}

/**
 * Funnels (issue 18): build one from actions or JSONLogic rules, run it through
 * POST /v1/funnels/query (the API's 422 shown by the step it names), and save it.
 */
export const funnelsPage: Page = async (ctx) => {
  const { actions } = await ok(api().GET('/v1/events/actions', { params: { query: ctx.scope } }));
  const f: FunnelForm = {
    ctx,
    builder: funnelBuilder(actions.map((a) => a.action).sort()),
    status: statusLine(),
    messages: h('div', { class: 'funnel-messages', 'aria-live': 'polite' }),
    result: h('section', { class: 'funnel-result', 'aria-label': 'Funnel result' }),
    name: h('input', { name: 'funnel_name', placeholder: 'Checkout' }),
  };
  const saved = h('div', {});
  async function list(): Promise<void> {
    const { funnels } = await ok(api().GET('/v1/funnels', { params: { query: ctx.scope } }));
    replace(
      saved,
      savedList(
        ctx,
        funnels,
        (one) => {
          f.builder.load(one);
          f.name.value = one.name;
          void run(f);
        },
        () => void list(),
        f.status,
      ),
    );
  }
  await list();
  replace(
    ctx.main,
    h('h1', { tabindex: -1 }, 'Funnels'),
    h(
      'form',
      {
        class: 'card',
        'aria-label': 'Funnel builder',
        onsubmit: (ev: SubmitEvent) => {
          ev.preventDefault();
          void run(f);
        },
      },
      f.builder.el,
      h(
        'div',
        { class: 'actions' },
        h('button', { type: 'submit' }, 'Run'),
        field('Name', f.name),
        h(
          'button',
          { type: 'button', class: 'secondary', onclick: async () => (await save(f)) && (await list()) },
          'Save funnel',
        ),
      ),
      f.messages,
      f.status,
    ),
    f.result,
    h('section', { class: 'card', 'aria-label': 'Saved funnels' }, h('h2', {}, 'Saved funnels'), saved),
  );
};
