/** Client-side routes over the history API; the gateway answers index.html for each of them. */
export interface Route<T> {
  pattern: RegExp;
  keys: string[];
  value: T;
}

export function route<T>(path: string, value: T): Route<T> {
  const keys: string[] = [];
  const source = path.replace(/:(\w+)/g, (_m, key: string) => {
    keys.push(key);
    return '([^/]+)';
  });
  return { pattern: new RegExp(`^${source}/?$`), keys, value };
}

export function match<T>(routes: Route<T>[], pathname: string): { value: T; params: Record<string, string> } | null {
  for (const r of routes) {
    const m = r.pattern.exec(pathname);
    if (!m) continue;
    const params: Record<string, string> = {};
    r.keys.forEach((k, i) => (params[k] = decodeURIComponent(m[i + 1] ?? '')));
    return { value: r.value, params };
  }
  return null;
}

/**
 * Same-origin links navigate without a reload: a click on an <a> inside the app (no modifier
 * key, no target) becomes a pushState and a render.
 */
export function interceptLinks(root: HTMLElement, go: (path: string) => void): void {
  root.addEventListener('click', (ev) => {
    const a = (ev.target as Element | null)?.closest('a');
    if (!a || a.target || a.hasAttribute('download') || ev.defaultPrevented || ev.button !== 0) return;
    if (ev.metaKey || ev.ctrlKey || ev.shiftKey || ev.altKey) return;
    const url = new URL(a.href, location.href);
    if (url.origin !== location.origin || url.pathname.startsWith('/v1/')) return;
    ev.preventDefault();
    go(url.pathname + url.search);
  });
}
