import type { components } from '@spoor/client';
import { h } from './dom-builder.js';
import { formatPercent } from './display-format.js';

type Matrix = components['schemas']['TransitionMatrix'];

/**
 * The matrix as a heat map: a row per `from`, a column per `to`, each cell shaded by the
 * probability of that step and labelled with it, so the figure reads without the colour too.
 * A table keeps it navigable by screen readers (row and column headers).
 */
export function transitionHeatmap(m: Matrix): HTMLElement {
  const froms = m.states.filter((s) => s !== '$end');
  const tos = m.states.filter((s) => s !== '$start');
  const cells = new Map(m.transitions.map((t) => [`${t.from}\u0000${t.to}`, t]));
  return h(
    'div',
    { class: 'heatmap-scroll', tabindex: 0, role: 'region', 'aria-label': 'Transition matrix, scrolls sideways' },
    h(
      'table',
      { class: 'heatmap' },
      h(
        'caption',
        {},
        `From a row’s action to a column’s, over ${m.sessions} sessions: share of the steps out of the row.`,
      ),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          h('th', { scope: 'col' }, 'from \\ to'),
          tos.map((t) => h('th', { scope: 'col' }, t)),
        ),
      ),
      h(
        'tbody',
        {},
        froms.map((f) =>
          h(
            'tr',
            {},
            h('th', { scope: 'row' }, f),
            tos.map((t) => {
              const cell = cells.get(`${f}\u0000${t}`);
              if (!cell) return h('td', { class: 'empty-cell' }, '');
              const alpha = 0.12 + cell.probability * 0.88;
              return h(
                'td',
                {
                  style: `background: rgba(37, 99, 235, ${alpha.toFixed(2)}); color: ${alpha > 0.55 ? '#fff' : '#111'}`,
                  title: `${f} → ${t}: ${cell.count}`,
                },
                formatPercent(cell.probability),
              );
            }),
          ),
        ),
      ),
    ),
  );
}

/** The strongest steps as sentences: the same data for a narrow screen or a quick read. */
export function topTransitions(m: Matrix, n = 10): HTMLElement {
  const top = [...m.transitions].sort((a, b) => b.count - a.count).slice(0, n);
  return h(
    'ol',
    { class: 'flows' },
    top.map((t) =>
      h(
        'li',
        {},
        h('strong', {}, t.from),
        ' → ',
        h('strong', {}, t.to),
        ` ${t.count} time${t.count === 1 ? '' : 's'} (${formatPercent(t.probability)})`,
      ),
    ),
  );
}
