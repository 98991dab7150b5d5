import type { components } from '@spoor/client';
import { api, ok } from '../api-access.js';
import { h, replace } from '../dom-builder.js';
import { formatTime } from '../display-format.js';
import type { Page, PageContext } from '../page-context.js';
import { messages, ruleEditor } from '../rule-editor.js';
import { yamlEditor } from '../rules-yaml-editor.js';

type Rule = components['schemas']['Rule'];

function ruleItem(
  ctx: PageContext,
  r: Rule,
  edit: (r: Rule) => void,
  reload: () => void,
  out: HTMLElement,
): HTMLElement {
  const disable = h(
    'button',
    {
      type: 'button',
      class: 'secondary small',
      'aria-label': `Disable rule ${r.rule_id}`,
      onclick: async () => {
        try {
          await ok(api().DELETE('/v1/rules/{rule_id}', { params: { path: { rule_id: r.rule_id }, query: ctx.scope } }));
          reload();
        } catch (err) {
          messages(out, err);
        }
      },
    },
    'Disable',
  );
  return h(
    'li',
    { class: 'rule-item' },
    h(
      'div',
      { class: 'row' },
      h('strong', { class: 'mono' }, r.rule_id),
      h('span', { class: 'chip' }, r.kind),
      h('span', { class: r.enabled ? 'chip ok' : 'chip warn' }, r.enabled ? 'enabled' : 'disabled'),
    ),
    h(
      'div',
      { class: 'muted' },
      `${r.label ?? 'no label'} · tags: ${r.tags.join(', ') || 'none'} · version ${r.version}, ${formatTime(r.updated_at)}`,
    ),
    h('code', { class: 'payload' }, JSON.stringify(r.logic)),
    h(
      'div',
      { class: 'row' },
      h(
        'button',
        { type: 'button', class: 'secondary small', 'aria-label': `Edit rule ${r.rule_id}`, onclick: () => edit(r) },
        'Edit',
      ),
      r.enabled ? disable : null,
    ),
  );
}

/** Every rule of the project (enabled or not), the editor, and a YAML document to test or apply. */
export const rulesPage: Page = async (ctx) => {
  const list = h('div', {});
  const editorSlot = h('div', {});
  const out = h('div', { 'aria-live': 'polite' });
  async function reload(): Promise<void> {
    const { rules } = await ok(api().GET('/v1/rules', { params: { query: ctx.scope } }));
    replace(
      list,
      rules.length
        ? h(
            'ul',
            { class: 'rule-list' },
            rules.map((r) => ruleItem(ctx, r, edit, () => void reload(), out)),
          )
        : h('p', { class: 'empty' }, 'No rule yet.'),
    );
  }
  function edit(r: Rule | null): void {
    const editor = ruleEditor(ctx.scope, r, () => void reload());
    replace(editorSlot, editor);
    editor.querySelector<HTMLElement>(r ? 'textarea' : 'input')?.focus();
  }
  await reload();
  edit(null);
  replace(
    ctx.main,
    h('h1', { tabindex: -1 }, 'Rules'),
    h(
      'div',
      { class: 'toolbar' },
      h('button', { type: 'button', onclick: () => edit(null) }, 'New rule'),
      h('a', { href: '/tags' }, 'Tags view'),
    ),
    out,
    list,
    editorSlot,
    yamlEditor(ctx.scope, () => void reload()),
  );
};
