import type { components } from '@spoor/client';
import { field, h, replace } from './dom-builder.js';

export type FunnelStep = components['schemas']['FunnelStep'];

/** One step of the funnel builder: its controls, what it asks for, and where its errors go. */
export interface StepRow {
  el: HTMLFieldSetElement;
  /** The step as the API takes it; throws, saying which step, when a JSON box does not parse. */
  read(): FunnelStep;
  /** Renumbers the row (after one above it was removed). */
  setIndex(i: number): void;
  /** The API's 422 lines about this step, or nothing. */
  showIssues(lines: string[]): void;
}

const RULE_SAMPLE = '{"==": [{"var": "path"}, "/pricing"]}';

function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new Error(`${what} is not valid JSON: ${(err as Error).message}`);
  }
}

/** The action picker: the actions the project has sent, plus the step's own when it is not among them (a saved funnel). */
function actionPicker(actions: string[], chosen: string | undefined): HTMLSelectElement {
  const names = chosen && !actions.includes(chosen) ? [chosen, ...actions] : actions;
  return h(
    'select',
    { name: 'action' },
    names.map((a) => h('option', { value: a, selected: a === chosen }, a)),
  );
}

/**
 * A step is an action (picked from GET /v1/events/actions, with optional payload values it must
 * equal) or a JSONLogic rule over one enriched event; the kind picker shows the controls of one.
 */
export function stepRow(
  index: number,
  actions: string[],
  initial: FunnelStep | null,
  onRemove: (row: StepRow) => void,
): StepRow {
  const legend = h('legend', {});
  const kind = h(
    'select',
    { name: 'kind', onchange: () => showKind() },
    h('option', { value: 'action', selected: !initial?.logic }, 'Action'),
    h('option', { value: 'rule', selected: initial?.logic !== undefined }, 'JSONLogic rule'),
  );
  const action = actionPicker(actions, initial?.action);
  const where = h('input', {
    name: 'where',
    class: 'mono',
    placeholder: '{"button": "buy"}',
    value: initial?.where ? JSON.stringify(initial.where) : '',
  });
  const logic = h('textarea', { name: 'logic', rows: 3, spellcheck: 'false', class: 'mono' });
  logic.value = initial?.logic !== undefined ? JSON.stringify(initial.logic) : RULE_SAMPLE;
  const name = h('input', { name: 'name', value: initial?.name ?? '' });
  const actionPart = h(
    'div',
    { class: 'row' },
    field('Action', action),
    field('Payload equals (JSON, optional)', where),
  );
  const rulePart = field(
    'Rule (JSONLogic over one event)',
    logic,
    'Sees action, payload.<field>, path, url, query.<name>, browser.name, geo.country, utm.source…',
  );
  const issues = h('div', { class: 'step-messages', 'aria-live': 'polite' });
  const remove = h('button', { type: 'button', class: 'secondary small', onclick: () => onRemove(row) }, 'Remove');
  const el = h(
    'fieldset',
    { class: 'funnel-step' },
    legend,
    h('div', { class: 'row' }, field('Kind', kind), field('Label (optional)', name)),
    actionPart,
    rulePart,
    issues,
    remove,
  );
  const row: StepRow = {
    el,
    read() {
      const n = legend.textContent ?? 'Step';
      const label = name.value.trim() ? { name: name.value.trim() } : {};
      if (kind.value === 'rule') return { ...label, logic: parseJson(logic.value, `${n}: the rule`) };
      if (!action.value) throw new Error(`${n}: no action to pick yet (none has been sent)`);
      const equal = where.value.trim() ? parseJson(where.value, `${n}: the payload values`) : undefined;
      if (equal !== undefined && (!equal || typeof equal !== 'object' || Array.isArray(equal)))
        throw new Error(`${n}: the payload values must be a JSON object`);
      return { ...label, action: action.value, ...(equal ? { where: equal as FunnelStep['where'] } : {}) };
    },
    setIndex(i) {
      legend.textContent = `Step ${i + 1}`;
      remove.setAttribute('aria-label', `Remove step ${i + 1}`);
    },
    showIssues(lines) {
      replace(
        issues,
        lines.length
          ? h(
              'ul',
              { class: 'status error', role: 'alert' },
              lines.map((l) => h('li', {}, l)),
            )
          : null,
      );
    },
  };
  function showKind(): void {
    actionPart.hidden = kind.value === 'rule';
    rulePart.hidden = kind.value !== 'rule';
  }
  row.setIndex(index);
  showKind();
  return row;
}
