// The Overview's controls: range (presets and two dates), comparison, goal, and the active
// filters as removable chips. Each change is a navigation to the view's URL (overview-view.ts).
import { field, filterChipList, h, showError, statusLine } from './dom-builder.js';
import {
  DIMENSION_LABELS,
  PRESETS,
  goalKey,
  utcDay,
  withoutFilter,
  type Goal,
  type OverviewView,
} from './overview-view.js';

const DAY = 86_400_000;
const MAX_DAYS = 400;

export interface GoalChoices {
  actions: string[];
  tags: string[];
}

function rangeControls(v: OverviewView, shown: { start: number; end: number }, go: (v: OverviewView) => void) {
  const select = h(
    'select',
    {
      name: 'range',
      onchange: () => {
        if (select.value !== 'custom') go({ ...v, range: select.value, from: '', to: '' });
      },
    },
    PRESETS.map(([k, label]) => h('option', { value: k, selected: k === v.range }, label)),
    h('option', { value: 'custom', selected: v.range === 'custom' }, 'Custom dates'),
  );
  const from = h('input', { type: 'date', name: 'from', value: utcDay(shown.start) });
  const to = h('input', { type: 'date', name: 'to', value: utcDay(shown.end - 1) });
  const status = statusLine();
  const apply = h(
    'button',
    {
      type: 'button',
      class: 'secondary',
      onclick: () => {
        const days = (Date.parse(to.value) - Date.parse(from.value)) / DAY + 1;
        if (!(days >= 1)) return showError(status, 'Choose a first day on or before the last day.');
        if (days > MAX_DAYS) return showError(status, `A range spans at most ${MAX_DAYS} days.`);
        go({ ...v, range: 'custom', from: from.value, to: to.value });
      },
    },
    'Show these dates',
  );
  return [field('Time range', select), field('First day (UTC)', from), field('Last day (UTC)', to), apply, status];
}

function goalSelect(v: OverviewView, goals: GoalChoices, go: (v: OverviewView) => void): HTMLSelectElement {
  const chosen = goalKey(v.goal);
  // A goal from a link whose action or tag is not listed (yet) stays chosen.
  const actions = [...goals.actions];
  const tags = [...goals.tags];
  if (v.goal && 'action' in v.goal && !actions.includes(v.goal.action)) actions.push(v.goal.action);
  if (v.goal && 'tag' in v.goal && !tags.includes(v.goal.tag)) tags.push(v.goal.tag);
  const option = (g: Goal, label: string) => h('option', { value: goalKey(g), selected: goalKey(g) === chosen }, label);
  const select = h(
    'select',
    {
      name: 'goal',
      onchange: () => {
        const [kind, ...rest] = select.value.split(':');
        const name = rest.join(':');
        go({ ...v, goal: !name ? null : kind === 'tag' ? { tag: name } : { action: name } });
      },
    },
    h('option', { value: '' }, 'No goal'),
    actions.length
      ? h(
          'optgroup',
          { label: 'Actions' },
          actions.map((a) => option({ action: a }, a)),
        )
      : null,
    tags.length
      ? h(
          'optgroup',
          { label: 'Tags (a rule’s tags too)' },
          tags.map((t) => option({ tag: t }, t)),
        )
      : null,
  );
  return select;
}

export function overviewToolbar(
  v: OverviewView,
  shown: { start: number; end: number },
  goals: GoalChoices,
  go: (v: OverviewView) => void,
): HTMLElement {
  const compare = h(
    'select',
    {
      name: 'compare',
      onchange: () =>
        go({ ...v, compare: compare.value === 'off' ? null : (compare.value as OverviewView['compare']) }),
    },
    h('option', { value: 'previous_period', selected: v.compare === 'previous_period' }, 'The previous period'),
    h('option', { value: 'year_over_year', selected: v.compare === 'year_over_year' }, 'The same period last year'),
    h('option', { value: 'off', selected: v.compare === null }, 'No comparison'),
  );
  return h(
    'div',
    { class: 'toolbar overview-toolbar' },
    rangeControls(v, shown, go),
    field('Compare with', compare),
    field('Goal', goalSelect(v, goals, go), 'Sessions with this action or tag convert'),
  );
}

/** The active filters as chips, each with a button that removes it. */
export function filterChips(v: OverviewView, go: (v: OverviewView) => void): HTMLElement | null {
  return filterChipList(
    v.filters.map((f, i) => ({
      text: `${DIMENSION_LABELS[f.dimension]} is ${f.value || '(none)'}`,
      remove: () => go(withoutFilter(v, i)),
    })),
  );
}
