import type { components } from '@spoor/client';
import { api, ApiError, ok } from './api-access.js';
import { field, h, replace } from './dom-builder.js';
import type { Scope } from './project-scope.js';
import { loadSessions } from './session-filters.js';

type Rule = components['schemas']['Rule'];
type RuleBody = components['schemas']['CreateRuleRequest'];

const SAMPLE = '{"and": [{">=": [{"var": "event_count"}, 3]}, {">=": [{"var": "page_count"}, 2]}]}';

/** The API's words for what is wrong, one per line (422 issues), or its message. */
export function messages(el: HTMLElement, err: unknown): void {
  const lines = err instanceof ApiError && err.issues.length ? err.issues : [(err as Error).message];
  replace(
    el,
    h(
      'ul',
      { class: 'status error', role: 'alert' },
      lines.map((l) => h('li', {}, l)),
    ),
  );
}

/** Rules (a YAML document; a JSON list is one too) evaluated on the project's 20 newest sessions; nothing is written. */
export async function testOnRecent(
  scope: Scope,
  rules: string,
): Promise<Array<{ session_id: string | null; matched: string[] }>> {
  const sessions = await loadSessions(scope, {}, 20);
  return (await ok(api().POST('/v1/rules/test', { body: { sessions, rules } }))).results;
}

function parseJson(what: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new Error(`${what} is not valid JSON: ${(err as Error).message}`);
  }
}

/**
 * Create or edit one rule: JSONLogic in a text area, tested on the project's most recent
 * sessions through POST /v1/rules/test (a JSON list is a YAML document too) before it is saved.
 */
export function ruleEditor(scope: Scope, rule: Rule | null, saved: () => void): HTMLElement {
  const id = h('input', { name: 'rule_id', required: true, value: rule?.rule_id ?? '', readonly: rule ? true : null });
  const kind = h(
    'select',
    { name: 'kind' },
    ['classification', 'attribute'].map((k) =>
      h('option', { value: k, selected: k === (rule?.kind ?? 'classification') }, k),
    ),
  );
  const label = h('input', { name: 'label', value: rule?.label ?? '' });
  const tags = h('input', { name: 'tags', value: rule?.tags.join(', ') ?? '' });
  const logic = h('textarea', { name: 'logic', rows: 6, spellcheck: 'false', class: 'mono' });
  logic.value = rule ? JSON.stringify(rule.logic, null, 2) : SAMPLE;
  const attribute = h('input', { name: 'attribute', value: rule?.attribute ?? '' });
  const value = h('input', {
    name: 'value',
    class: 'mono',
    value: rule?.value !== undefined && rule?.value !== null ? JSON.stringify(rule.value) : '',
  });
  // Saving keeps the rule as it was: a disabled rule stays disabled unless this is ticked.
  const enabled = h('input', { type: 'checkbox', name: 'enabled', checked: rule ? rule.enabled : true });
  const out = h('div', { class: 'rule-messages', 'aria-live': 'polite' });
  const heading = h('h2', {}, rule ? `Edit ${rule.rule_id}` : 'New rule');
  function body(): RuleBody {
    const isAttribute = kind.value === 'attribute';
    return {
      ...scope,
      rule_id: id.value.trim(),
      kind: isAttribute ? 'attribute' : 'classification',
      enabled: enabled.checked,
      logic: parseJson('Logic', logic.value),
      tags: tags.value
        .split(',')
        .map((t) => t.trim())
        .filter(Boolean),
      label: label.value.trim() || null,
      ...(isAttribute
        ? {
            attribute: attribute.value.trim() || null,
            value: value.value.trim() ? parseJson('Value', value.value) : null,
          }
        : {}),
    };
  }
  async function test(): Promise<void> {
    try {
      const { origin: _o, project: _p, ...definition } = body();
      const results = await testOnRecent(scope, JSON.stringify([definition]));
      const matched = results.filter((r) => r.matched.length > 0);
      replace(
        out,
        h(
          'p',
          { class: 'status info', role: 'status' },
          `Matches ${matched.length} of ${results.length} recent sessions.`,
        ),
        h(
          'ul',
          {},
          matched.map((r) =>
            h(
              'li',
              {},
              h('a', { href: `/sessions/${encodeURIComponent(r.session_id ?? '')}` }, r.session_id ?? '(no id)'),
            ),
          ),
        ),
      );
    } catch (err) {
      messages(out, err);
    }
  }
  const form = h(
    'form',
    {
      class: 'card rule-editor',
      'aria-label': 'Rule editor',
      onsubmit: async (ev: SubmitEvent) => {
        ev.preventDefault();
        try {
          const savedRule = await ok(api().POST('/v1/rules', { body: body() }));
          replace(
            out,
            h(
              'p',
              { class: 'status info', role: 'status' },
              `Saved ${savedRule.rule_id} (version ${savedRule.version}).`,
            ),
          );
          // The editor now edits the saved rule: its id is fixed, the next save is its next version.
          id.readOnly = true;
          heading.textContent = `Edit ${savedRule.rule_id}`;
          saved();
        } catch (err) {
          messages(out, err);
        }
      },
    },
    heading,
    field('Rule id', id),
    field('Kind', kind),
    field('Label', label),
    field('Enabled', enabled),
    field('Tags on match', tags, 'Separated by commas.'),
    field(
      'Logic (JSONLogic)',
      logic,
      'Classification rules see the session summary (event_count, page_count, actions, utm, geo…); attribute rules see each event.',
    ),
    field('Attribute (attribute rules)', attribute),
    field('Value (JSONLogic, attribute rules)', value),
    h(
      'div',
      { class: 'actions' },
      h('button', { type: 'button', class: 'secondary', onclick: () => void test() }, 'Test on recent sessions'),
      h('button', { type: 'submit' }, 'Save rule'),
    ),
    out,
  );
  return form;
}
