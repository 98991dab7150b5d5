import { h } from './dom-builder.js';
import { formatCount } from './display-format.js';

export interface Ranked {
  name: string;
  count: number;
  /** A second figure after the count (the Overview's conversions). */
  extra?: string;
}

/** Makes each row a button (the Overview: a row filters the page), read as `<hint> <name> <count>`. */
export interface RowPick {
  onPick(name: string): void;
  /** Said before the row's text by screen readers only, e.g. "Filter by referrer:". */
  hint: string;
}

/**
 * A top-N list with a bar behind each row, as Plausible and Umami show their breakdowns: the
 * bar's length is the row's share of the largest, the figure is written out for everyone.
 */
export function rankedList(
  title: string,
  rows: Ranked[],
  empty = 'Nothing in this window.',
  pick?: RowPick,
): HTMLElement {
  const max = Math.max(1, ...rows.map((r) => r.count));
  const cells = (r: Ranked) => [
    h('span', { class: 'bar', style: `width:${(r.count / max) * 100}%` }),
    h('span', { class: 'name', title: r.name }, r.name || '(none)'),
    h('span', { class: 'count' }, formatCount(r.count), r.extra ? h('span', { class: 'extra' }, r.extra) : null),
  ];
  return h(
    'section',
    { class: 'card ranked', 'aria-label': title },
    h('h3', {}, title),
    rows.length === 0
      ? h('p', { class: 'muted' }, empty)
      : h(
          'ol',
          {},
          rows.map((r) =>
            pick
              ? h(
                  'li',
                  { class: 'pickable' },
                  h(
                    'button',
                    { type: 'button', class: 'row-pick', onclick: () => pick.onPick(r.name) },
                    h('span', { class: 'sr-only' }, `${pick.hint} `),
                    cells(r),
                  ),
                )
              : h('li', {}, cells(r)),
          ),
        ),
  );
}

/** A row of headline figures. */
export function figures(items: [label: string, value: string][]): HTMLElement {
  return h(
    'dl',
    { class: 'figures' },
    items.map(([label, value]) => h('div', { class: 'figure' }, h('dt', {}, label), h('dd', {}, value))),
  );
}
