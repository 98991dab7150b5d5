/** What a click is on: the nearest interactive ancestor, else the element itself. */
const INTERACTIVE = 'a,button,input,select,textarea,label,summary,[role=button],[role=link],[onclick]';

/** `tag#id` or `tag.class`: one step of a short CSS path. */
function step(el: Element): string {
  const tag = el.tagName.toLowerCase();
  return el.id ? `${tag}#${el.id}` : el.classList[0] ? `${tag}.${el.classList[0]}` : tag;
}

/** Up to four steps from the element upwards, stopping at the first id: stable across page loads. */
export function cssPath(el: Element): string {
  const steps: string[] = [];
  for (let e: Element | null = el; e && e !== document.documentElement && steps.length < 4; e = e.parentElement) {
    steps.unshift(step(e));
    if (e.id) break;
  }
  return steps.join('>');
}

/**
 * A stable description of a clicked element: tag, id, classes, visible text (cut at 80
 * characters), href and a short CSS path. Input values are never read; a form field or an
 * editable element gives no text at all, since its text is what the user typed.
 */
export function describeElement(target: Element): Record<string, string> {
  const el = target.closest(INTERACTIVE) || target;
  const d: Record<string, string> = { tag: el.tagName.toLowerCase(), path: cssPath(el) };
  if (el.id) d.id = el.id;
  if (el.classList.length) d.classes = [...el.classList].slice(0, 8).join(' ');
  const html = el as HTMLElement;
  const field = /^(input|select|textarea)$/.test(d.tag!) || html.isContentEditable;
  const text = field ? '' : (html.innerText || el.textContent || '').replace(/\s+/g, ' ').trim();
  if (text) d.text = text.slice(0, 80);
  const href = (el as HTMLAnchorElement).href;
  if (typeof href === 'string' && href) d.href = href;
  return d;
}
