import { h, replace, showError, statusLine } from '../dom-builder.js';

export interface Section {
  element: HTMLElement;
  /** Re-reads and redraws the list. */
  reload(): Promise<void>;
  status: HTMLElement;
}

/** A settings card: a heading, a list that reloads after each change, and a form to add one. */
export function settingsSection(
  title: string,
  list: () => Promise<HTMLElement>,
  form: (s: Section) => HTMLElement,
): Section {
  const body = h('div', {});
  const status = statusLine();
  const element = h('section', { class: 'card settings', 'aria-label': title }, h('h2', {}, title), body);
  const section: Section = {
    element,
    status,
    async reload() {
      try {
        replace(body, await list());
      } catch (err) {
        showError(status, (err as Error).message);
      }
    },
  };
  element.append(form(section), status);
  return section;
}

/** Runs a change, reloads the list, reports what happened in the section's status line. */
export async function change(section: Section, run: () => Promise<string | HTMLElement>): Promise<void> {
  try {
    const done = await run();
    await section.reload();
    if (typeof done === 'string') {
      section.status.className = 'status info';
      section.status.textContent = done;
    } else replace(section.status, done);
  } catch (err) {
    showError(section.status, (err as Error).message);
  }
}

/** A secret the server answers once: shown with that warning, selectable for copying. */
export function secretOnce(what: string, secret: string): HTMLElement {
  return h(
    'div',
    { class: 'secret', role: 'alert' },
    h('p', {}, `${what}: copy it now, it is not shown again.`),
    h('input', {
      class: 'mono',
      readonly: true,
      value: secret,
      'aria-label': what,
      onfocus: (ev: FocusEvent) => (ev.target as HTMLInputElement).select(),
    }),
  );
}

export const removeButton = (label: string, onclick: () => void): HTMLButtonElement =>
  h('button', { type: 'button', class: 'secondary small', 'aria-label': label, onclick }, 'Delete');
