/** Attributes of `h`: strings and numbers become attributes, functions become listeners (`onclick`). */
export type Attrs = Record<string, string | number | boolean | null | undefined | ((ev: any) => void)>;
export type Child = Node | string | number | null | undefined | false | Child[];

/**
 * Builds an element. Text always goes in as text nodes, never as HTML, so whatever a visitor's
 * browser sent (URLs, payloads, referrers) cannot inject markup into the dashboard.
 */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (typeof value === 'function') el.addEventListener(name.slice(2), value);
    else if (value === true) el.setAttribute(name, '');
    else el.setAttribute(name, String(value));
  }
  append(el, children);
  return el;
}

export function append(parent: Node, children: Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(parent, c);
    else parent.appendChild(typeof c === 'object' ? c : document.createTextNode(String(c)));
  }
}

/** Replaces everything inside `el`. */
export function replace(el: Element, ...children: Child[]): void {
  el.replaceChildren();
  append(el, children);
}

let fieldIds = 0;

/**
 * A labelled form field. The label names the control through `for`, not by wrapping it: a
 * wrapped <select> would have its chosen option read as part of its name. A hint is tied to
 * the control with aria-describedby.
 */
export function field(label: string, control: HTMLElement, hint?: string): HTMLDivElement {
  const id = control.id || `field-${++fieldIds}`;
  control.id = id;
  const note = hint ? h('small', { id: `${id}-hint` }, hint) : null;
  if (note) control.setAttribute('aria-describedby', note.id);
  return h('div', { class: 'field' }, h('label', { class: 'field-label', for: id }, label), control, note);
}

/**
 * Active filters as removable chips (the Overview, the Audit page): each chip's text, and a ×
 * button named "Remove filter <text>" that calls its `remove`. Nothing when there is none.
 */
export function filterChipList(chips: Array<{ text: string; remove: () => void }>): HTMLElement | null {
  if (chips.length === 0) return null;
  return h(
    'ul',
    { class: 'chips filter-chips', 'aria-label': 'Filters' },
    chips.map(({ text, remove }) =>
      h(
        'li',
        { class: 'chip filter-chip' },
        h('span', {}, text),
        h(
          'button',
          { type: 'button', class: 'chip-remove', 'aria-label': `Remove filter ${text}`, onclick: remove },
          '×',
        ),
      ),
    ),
  );
}

/** A status line that screen readers announce when it changes. */
export function statusLine(cls = 'status'): HTMLParagraphElement {
  return h('p', { class: cls, role: 'status', 'aria-live': 'polite' });
}

export function showError(el: HTMLElement, message: string): void {
  el.className = 'status error';
  el.textContent = message;
}

export function showInfo(el: HTMLElement, message: string): void {
  el.className = 'status info';
  el.textContent = message;
}

/**
 * A button's long task: disabled while it runs, `busy` then `done` (or the error) in `status`.
 * The overview's "Aggregate now" and the transitions' "Compute" run jobs this way.
 */
export async function whileBusy(
  button: HTMLButtonElement,
  status: HTMLElement,
  busy: string,
  done: string,
  work: () => Promise<void>,
): Promise<void> {
  button.disabled = true;
  showInfo(status, busy);
  try {
    await work();
    showInfo(status, done);
  } catch (err) {
    showError(status, (err as Error).message);
  } finally {
    button.disabled = false;
  }
}
