/** The project the pages show: kept per browser so that a reload stays on it. */
export interface Scope {
  origin: string;
  project: string;
}

const SCOPE_KEY = 'spoor.scope';

export function storedScope(): Scope | null {
  try {
    const raw = localStorage.getItem(SCOPE_KEY);
    return raw ? (JSON.parse(raw) as Scope) : null;
  } catch {
    return null;
  }
}

export function saveScope(scope: Scope | null): void {
  if (scope) localStorage.setItem(SCOPE_KEY, JSON.stringify(scope));
  else localStorage.removeItem(SCOPE_KEY);
}

export const scopeKey = (s: Scope): string => `${s.origin} ${s.project}`;
