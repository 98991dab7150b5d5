import type { components } from '@spoor/client';
import { api, ok } from './api-access.js';
import { field, h, replace } from './dom-builder.js';
import type { Scope } from './project-scope.js';
import { messages, testOnRecent } from './rule-editor.js';

type RuleBody = components['schemas']['CreateRuleRequest'];

const SAMPLE = `rules:
  - rule_id: engaged
    label: Engaged visitor
    tags: [engaged]
    logic: {">=": [{var: event_count}, 5]}
`;

/**
 * The rules as a YAML document, as `spoor rules apply` takes it. The server checks it (POST
 * /v1/rules/test answers 422 with line and column) and tests it on recent sessions; applying
 * parses it here with the `yaml` library, loaded only when someone applies (its own chunk,
 * so the dashboard's first load does not carry it), and saves each rule.
 */
export function yamlEditor(scope: Scope, saved: () => void): HTMLElement {
  const text = h('textarea', { name: 'rules_yaml', rows: 8, spellcheck: 'false', class: 'mono' });
  text.value = SAMPLE;
  const out = h('div', { 'aria-live': 'polite' });
  async function test(): Promise<void> {
    try {
      const n = (await testOnRecent(scope, text.value)).filter((r) => r.matched.length > 0).length;
      replace(
        out,
        h('p', { class: 'status info', role: 'status' }, `The document is valid; it matches ${n} recent sessions.`),
      );
    } catch (err) {
      messages(out, err);
    }
  }
  async function apply(): Promise<void> {
    try {
      // The server's check (422 with line and column) needs no sessions: one request.
      await ok(api().POST('/v1/rules/test', { body: { sessions: [], rules: text.value } }));
      const { parse } = await import('./yaml-loader.js');
      const doc = parse(text.value) as unknown;
      const list = (Array.isArray(doc) ? doc : ((doc as { rules?: unknown[] }).rules ?? [])) as Partial<RuleBody>[];
      for (const rule of list) await ok(api().POST('/v1/rules', { body: { ...rule, ...scope } as RuleBody }));
      replace(
        out,
        h('p', { class: 'status info', role: 'status' }, `Applied ${list.length} rule${list.length === 1 ? '' : 's'}.`),
      );
      saved();
    } catch (err) {
      messages(out, err);
    }
  }
  return h(
    'section',
    { class: 'card', 'aria-label': 'Rules as YAML' },
    h('h2', {}, 'Rules as YAML'),
    field('YAML rules document', text, 'A list of rules, or a mapping with a rules: list.'),
    h(
      'div',
      { class: 'actions' },
      h('button', { type: 'button', class: 'secondary', onclick: () => void test() }, 'Check and test YAML'),
      h('button', { type: 'button', onclick: () => void apply() }, 'Apply YAML'),
    ),
    out,
  );
}
