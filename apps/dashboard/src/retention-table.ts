import type { components } from '@spoor/client';
import { h } from './dom-builder.js';
import { formatCount, formatPercent } from './display-format.js';

type Retention = components['schemas']['RetentionResult'];

/** A cohort's start as its UTC date: cohorts are UTC days and ISO weeks, whatever the browser's zone. */
export const cohortDate = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/**
 * The retention triangle as a heat map: a row per cohort (the period its visitors were first
 * seen, and how many), a column per later period, each cell shaded by the share of the cohort
 * back then and labelled with it, so it reads without the colour. Periods the cohort has not
 * reached yet stay empty, which makes the triangle.
 */
export function retentionTable(r: Retention): HTMLElement {
  const periods = Math.max(1, ...r.cohorts.map((c) => c.shares.length));
  const unit = r.period === 'day' ? 'Day' : 'Week';
  return h(
    'div',
    { class: 'heatmap-scroll', tabindex: 0, role: 'region', 'aria-label': 'Retention, scrolls sideways' },
    h(
      'table',
      { class: 'heatmap retention' },
      h(
        'caption',
        {},
        `Visitors by the ${r.period} they were first seen, and the share of them back in each later ${r.period}${r.action ? ` with “${r.action}”` : ''}.`,
      ),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          h('th', { scope: 'col' }, 'Cohort'),
          h('th', { scope: 'col' }, 'Visitors'),
          Array.from({ length: periods }, (_, k) => h('th', { scope: 'col' }, `${unit} ${k}`)),
        ),
      ),
      h(
        'tbody',
        {},
        r.cohorts.map((c) =>
          h(
            'tr',
            {},
            h('th', { scope: 'row' }, `${r.period === 'week' ? 'Week of ' : ''}${cohortDate(c.start)}`),
            h('td', {}, formatCount(c.size)),
            Array.from({ length: periods }, (_, k) => {
              const share = c.shares[k];
              if (share === undefined || c.size === 0) return h('td', { class: 'empty-cell' }, '');
              const alpha = 0.08 + share * 0.92;
              return h(
                'td',
                {
                  style: `background: rgba(4, 120, 87, ${alpha.toFixed(2)}); color: ${alpha > 0.55 ? '#fff' : '#111'}`,
                  title: `${c.returning[k]} of ${c.size}`,
                },
                formatPercent(share),
              );
            }),
          ),
        ),
      ),
    ),
  );
}
