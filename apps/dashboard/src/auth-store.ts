/**
 * The ID token lives in localStorage so that a reload or a new tab stays signed in. The
 * trade-off (docs/dashboard.md): script running on this origin could read it, which is why the
 * dashboard renders every server string as text and loads no third-party script; an httpOnly
 * cookie would need a CSRF defence on every API call, and the API takes Bearer tokens only.
 */
const TOKEN_KEY = 'spoor.token';

interface StoredToken {
  id_token: string;
  expires_at: number;
  email: string;
}

export function storedToken(now = Date.now()): StoredToken | null {
  try {
    const raw = localStorage.getItem(TOKEN_KEY);
    const token = raw ? (JSON.parse(raw) as StoredToken) : null;
    return token && token.expires_at > now ? token : null;
  } catch {
    return null;
  }
}

export function saveToken(token: StoredToken): void {
  localStorage.setItem(TOKEN_KEY, JSON.stringify(token));
}

export function clearToken(): void {
  localStorage.removeItem(TOKEN_KEY);
}
