// Storage that never throws: Safari's private mode and sandboxed frames refuse it, and a
// logger must not break the page it runs on.

export function read<T>(store: 'sessionStorage' | 'localStorage', key: string): T | null {
  try {
    return JSON.parse(window[store].getItem(key) || 'null') as T | null;
  } catch {
    return null;
  }
}

export function write(store: 'sessionStorage' | 'localStorage', key: string, value: unknown): void {
  try {
    if (value === null) window[store].removeItem(key);
    else window[store].setItem(key, JSON.stringify(value));
  } catch {
    // Full or refused: the value lives in memory only.
  }
}
