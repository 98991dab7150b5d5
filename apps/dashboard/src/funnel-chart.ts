import type { components } from '@spoor/client';
import { h } from './dom-builder.js';
import { formatCount, formatDuration, formatPercent } from './display-format.js';

type FunnelResult = components['schemas']['FunnelResult'];
type StepResult = components['schemas']['FunnelStepResult'];

const share = (r: number | null) => (r === null ? '—' : formatPercent(r));
const median = (ms: number | null) => (ms === null ? '—' : formatDuration(ms));

/**
 * A bar per step, as long as the share of the first step's units that reached it, labelled with
 * the count and both conversions, so it reads without the bars too. Plain DOM (no chart
 * library): a handful of bars needs none, and the widths are percentages, so it fits any width.
 */
export function funnelChart(r: FunnelResult): HTMLElement {
  const first = r.steps[0]?.entered ?? 0;
  const summary = r.steps.map((s) => `${s.name}: ${s.entered}`).join(', ');
  return h(
    'figure',
    { class: 'funnel-chart' },
    h(
      'ol',
      {},
      r.steps.map((s, i) => {
        const width = first === 0 ? 0 : (s.entered / first) * 100;
        // From step 2 on, the share of the previous step too (for step 2 both are of step 1).
        const previous = i < 2 ? '' : ` · ${share(s.conversion_from_previous)} of step ${i}`;
        return h(
          'li',
          {},
          h('span', { class: 'funnel-label' }, `${i + 1}. ${s.name}`),
          h(
            'span',
            { class: 'funnel-track', 'aria-hidden': 'true' },
            h('span', { class: 'funnel-bar', style: `width: ${width.toFixed(1)}%` }),
          ),
          h(
            'span',
            { class: 'funnel-figure' },
            `${formatCount(s.entered)} · ${share(s.conversion_from_first)} of step 1${previous}`,
          ),
        );
      }),
    ),
    h(
      'figcaption',
      { class: 'muted' },
      `${r.unit === 'session' ? 'Sessions' : 'Visitors'} reaching each step (${summary}); ${r.order === 'strict' ? 'in order' : 'in any order'}, within ${formatDuration(r.conversion_window_ms)} of the first step.`,
    ),
  );
}

const headers = ['Step', 'Entered', 'Converted', 'From previous', 'From first', 'Median to next'];

function stepRows(steps: StepResult[]): HTMLElement[] {
  return steps.map((s) =>
    h(
      'tr',
      {},
      h('th', { scope: 'row' }, s.name),
      h('td', {}, formatCount(s.entered)),
      h('td', {}, s.converted === null ? '—' : formatCount(s.converted)),
      h('td', {}, share(s.conversion_from_previous)),
      h('td', {}, share(s.conversion_from_first)),
      h('td', {}, median(s.median_ms_to_next)),
    ),
  );
}

/** The figures of every step as a table (what the chart draws, exactly). */
export function funnelTable(steps: StepResult[], caption: string): HTMLElement {
  return h(
    'div',
    { class: 'table-scroll' },
    h(
      'table',
      { class: 'funnel-table' },
      h('caption', {}, caption),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          headers.map((t) => h('th', { scope: 'col' }, t)),
        ),
      ),
      h('tbody', {}, stepRows(steps)),
    ),
  );
}

/** Per breakdown value, how many entered each step: a row per value, a column per step. */
export function breakdownTable(r: FunnelResult): HTMLElement | null {
  if (!r.breakdown) return null;
  const names = r.steps.map((s) => s.name);
  return h(
    'div',
    { class: 'table-scroll' },
    h(
      'table',
      { class: 'funnel-table' },
      h(
        'caption',
        {},
        `By ${r.breakdown.property.replace('_', ' ')} of the first event: entered (share of the first step)`,
      ),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          h('th', { scope: 'col' }, r.breakdown.property.replace('_', ' ')),
          names.map((n) => h('th', { scope: 'col' }, n)),
        ),
      ),
      h(
        'tbody',
        {},
        r.breakdown.groups.map((g) =>
          h(
            'tr',
            {},
            h('th', { scope: 'row' }, g.value ?? '(unknown)'),
            g.steps.map((s) => h('td', {}, `${formatCount(s.entered)} (${share(s.conversion_from_first)})`)),
          ),
        ),
      ),
    ),
  );
}
