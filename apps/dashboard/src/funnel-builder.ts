import type { components } from '@spoor/client';
import { ApiError } from './api-access.js';
import { field, h, replace } from './dom-builder.js';
import { stepRow, type FunnelStep, type StepRow } from './funnel-step-row.js';

type Query = components['schemas']['FunnelQueryRequest'];
type SavedFunnel = components['schemas']['SavedFunnel'];
/** What the builder says: the steps and how to count them (the query without its scope). */
export type FunnelDefinition = Pick<Query, 'steps' | 'unit' | 'order' | 'conversion_window_ms' | 'breakdown'> & {
  window_start: number;
  window_end: number;
};

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** The API takes 2 to 10 steps (FUNNEL_LIMITS). */
const MAX_STEPS = 10;
const SPANS: Array<[label: string, ms: number]> = [
  ['24 hours', DAY],
  ['7 days', 7 * DAY],
  ['30 days', 30 * DAY],
  ['90 days', 90 * DAY],
];
const WINDOW_UNITS: Array<[label: string, ms: number]> = [
  ['minutes', 60_000],
  ['hours', HOUR],
  ['days', DAY],
];
const BREAKDOWNS = ['browser', 'country', 'utm_source', 'entry_page'] as const;

const options = (pairs: Array<[value: string, label: string]>, chosen: string) =>
  pairs.map(([v, l]) => h('option', { value: v, selected: v === chosen }, l));

export interface FunnelBuilder {
  el: HTMLElement;
  /** The definition; throws (and marks the step) when a step's JSON does not parse. */
  read(): FunnelDefinition;
  load(saved: SavedFunnel): void;
  /** Puts the API's 422 lines next to the step they name (`steps.1.logic: …`), the rest in `general`. */
  showIssues(err: unknown, general: HTMLElement): void;
}

/** The conversion window in the largest unit that divides it (a saved funnel's 2 h shows as 2 hours). */
function splitWindow(ms: number): [amount: number, unitMs: number] {
  const unit = [...WINDOW_UNITS].reverse().find(([, u]) => ms % u === 0)?.[1] ?? 60_000;
  return [Math.max(1, Math.round(ms / unit)), unit];
}

type Counting = Omit<FunnelDefinition, 'steps'>;

/** How the steps are counted: unit, order, conversion window, breakdown, and over which recent span. */
function countingOptions(): { el: HTMLElement; read(): Counting; load(saved: SavedFunnel): void } {
  const unit = h(
    'select',
    { name: 'unit' },
    options(
      [
        ['session', 'Sessions'],
        ['visitor', 'Visitors'],
      ],
      'session',
    ),
  );
  const order = h(
    'select',
    { name: 'order' },
    options(
      [
        ['strict', 'Strict (in this order)'],
        ['any', 'Any order'],
      ],
      'strict',
    ),
  );
  const amount = h('input', { name: 'conversion_window', type: 'number', min: 1, value: 1, class: 'narrow' });
  const amountUnit = h(
    'select',
    { name: 'conversion_window_unit' },
    options(
      WINDOW_UNITS.map(([l, ms]) => [String(ms), l]),
      String(DAY),
    ),
  );
  const breakdown = h(
    'select',
    { name: 'breakdown' },
    options([['', 'None'], ...BREAKDOWNS.map((b): [string, string] => [b, b.replace('_', ' ')])], ''),
  );
  const span = h(
    'select',
    { name: 'span' },
    options(
      SPANS.map(([l, ms]) => [String(ms), `last ${l}`]),
      String(7 * DAY),
    ),
  );
  return {
    el: h(
      'div',
      { class: 'toolbar funnel-options' },
      field('Count', unit),
      field('Order', order),
      field('Conversion window', amount),
      field('Conversion window unit', amountUnit),
      field('Breakdown', breakdown),
      field('Window', span),
    ),
    read() {
      const now = Date.now();
      return {
        unit: unit.value as Query['unit'],
        order: order.value as Query['order'],
        conversion_window_ms: Math.max(1, Math.round(Number(amount.value))) * Number(amountUnit.value),
        ...(breakdown.value ? { breakdown: breakdown.value as Query['breakdown'] } : {}),
        window_start: now - Number(span.value),
        window_end: now,
      };
    },
    load(saved) {
      unit.value = saved.unit;
      order.value = saved.order;
      const [n, u] = splitWindow(saved.conversion_window_ms);
      amount.value = String(n);
      amountUnit.value = String(u);
      breakdown.value = saved.breakdown ?? '';
    },
  };
}

/** The 422 lines by the step they name (`steps.1.logic: …`), and the others. */
function byStep(lines: string[]): { steps: Map<number, string[]>; rest: string[] } {
  const steps = new Map<number, string[]>();
  const rest: string[] = [];
  for (const line of lines) {
    const m = /^steps\.(\d+)[.:]/.exec(line);
    if (m) steps.set(Number(m[1]), [...(steps.get(Number(m[1])) ?? []), line]);
    else rest.push(line);
  }
  return { steps, rest };
}

/** Each row's step; a row whose JSON does not parse says so under it, and the read fails. */
function readSteps(rows: StepRow[]): FunnelStep[] {
  return rows.map((r) => {
    r.showIssues([]);
    try {
      return r.read();
    } catch (err) {
      r.showIssues([(err as Error).message]);
      throw err;
    }
  });
}

/** The API's 422 lines under the step they name, the others (and those of no such step) in `general`. */
function placeIssues(rows: StepRow[], err: unknown, general: HTMLElement): void {
  const { steps, rest } = byStep(err instanceof ApiError && err.issues.length ? err.issues : [(err as Error).message]);
  rows.forEach((r, i) => r.showIssues(steps.get(i) ?? []));
  for (const [i, lines] of steps) if (!rows[i]) rest.push(...lines);
  replace(
    general,
    rest.length
      ? h(
          'ul',
          { class: 'status error', role: 'alert' },
          rest.map((l) => h('li', {}, l)),
        )
      : null,
  );
}

/** The funnel builder: steps (actions from `actions`, or JSONLogic rules) and the counting options. */
export function funnelBuilder(actions: string[]): FunnelBuilder {
  const list = h('div', { class: 'funnel-steps' });
  const counting = countingOptions();
  let rows: StepRow[] = [];
  const remove = (r: StepRow) => {
    if (rows.length <= 2) return;
    rows = rows.filter((x) => x !== r);
    r.el.remove();
    rows.forEach((x, i) => x.setIndex(i));
  };
  const add = (step: FunnelStep) => {
    if (rows.length >= MAX_STEPS) return;
    rows.push(stepRow(rows.length, actions, step, remove));
    list.append(rows[rows.length - 1]!.el);
  };
  const setSteps = (steps: FunnelStep[]) => {
    rows = [];
    replace(list);
    steps.forEach(add);
  };
  const guess = (i: number): FunnelStep => ({ action: actions[i] ?? actions[0] ?? '' });
  setSteps([guess(0), guess(1)]);
  const addButton = h(
    'button',
    { type: 'button', class: 'secondary', onclick: () => add(guess(rows.length)) },
    'Add step',
  );
  return {
    el: h('div', { class: 'funnel-builder' }, list, h('div', { class: 'actions' }, addButton), counting.el),
    read: () => ({ steps: readSteps(rows), ...counting.read() }),
    load(saved) {
      setSteps(saved.steps);
      counting.load(saved);
    },
    showIssues: (err, general) => placeIssues(rows, err, general),
  };
}
