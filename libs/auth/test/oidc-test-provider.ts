// A real OpenID provider (panva's oidc-provider) on 127.0.0.1, port 0, for the external-issuer
// tests. The HTTP server stays up across key rotations: rotation builds a new Provider with new
// keys under the same issuer URL and swaps it in, which is what a real IdP rotation looks like
// from outside (same discovery, new JWKS). Requests to the JWKS are counted.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, type CryptoKey, type JWK } from 'jose';
import Provider from 'oidc-provider';

export const CLIENT_ID = 'spoor-cli';
export const OTHER_CLIENT_ID = 'other-app';
const CLIENT_SECRET = 'test-secret-that-is-long-enough-for-hs256-32b';
const REDIRECT_URI = 'http://127.0.0.1:1/callback';

export type SigningAlg = 'RS256' | 'ES256';

export interface ProviderKey {
  alg: SigningAlg;
  kid: string;
  privateKey: CryptoKey;
  publicJwk: JWK;
}

async function makeKey(alg: SigningAlg): Promise<{ key: ProviderKey; privateJwk: JWK }> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  const publicJwk = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(publicJwk);
  const privateJwk = { ...(await exportJWK(privateKey)), kid, alg, use: 'sig' };
  return { key: { alg, kid, privateKey, publicJwk: { ...publicJwk, kid, alg, use: 'sig' } }, privateJwk };
}

function providerFor(issuer: string, alg: SigningAlg, privateJwks: JWK[]): Provider {
  const client = (clientId: string) => ({
    client_id: clientId,
    client_secret: CLIENT_SECRET,
    redirect_uris: [REDIRECT_URI],
    response_types: ['code'],
    grant_types: ['authorization_code'],
    id_token_signed_response_alg: alg,
  });
  const seconds = (n: number) => () => n;
  return new Provider(issuer, {
    clients: [client(CLIENT_ID), client(OTHER_CLIENT_ID)],
    jwks: { keys: privateJwks },
    cookies: { keys: ['oidc-test-provider-cookie-key'] },
    claims: { openid: ['sub'], email: ['email', 'email_verified'] },
    // Put `email` into the ID token itself (not only userinfo), as most IdPs do when asked.
    conformIdTokenClaims: false,
    findAccount: async (_ctx: unknown, sub: string) => ({
      accountId: sub,
      claims: async () => ({ sub, email: `${sub}@Example.test`, email_verified: true }),
    }),
    features: { devInteractions: { enabled: true } },
    ttl: {
      AccessToken: seconds(3600),
      AuthorizationCode: seconds(60),
      IdToken: seconds(3600),
      Interaction: seconds(600),
      Session: seconds(3600),
      Grant: seconds(3600),
      ClientCredentials: seconds(600),
      RefreshToken: seconds(3600),
      DeviceCode: seconds(600),
      BackchannelAuthenticationRequest: seconds(600),
    },
  });
}

export interface PreparedKeys {
  alg: SigningAlg;
  /** The signing key first. */
  keys: ProviderKey[];
  privateJwks: JWK[];
}

export interface TestProvider {
  readonly issuer: string;
  /** The keys the provider currently signs with (and serves in its JWKS). */
  readonly keys: ProviderKey[];
  /** GET requests the JWKS endpoint received. */
  readonly jwksRequests: number;
  /** Makes the JWKS endpoint answer 503 while true (discovery keeps working). */
  jwksDown: boolean;
  /** A real ID token: the authorization-code flow, login and consent driven over HTTP. */
  obtainIdToken(login: string, clientId?: string): Promise<string>;
  /** Makes the next key set without publishing it (key generation is slow under load). */
  prepareKeys(alg?: SigningAlg): Promise<PreparedKeys>;
  /** Switches to prepared keys at once, same issuer; the old keys vanish from the JWKS. */
  rotateKeys(next: PreparedKeys): void;
  stop(): Promise<void>;
}

export async function startTestProvider(alg: SigningAlg = 'RS256'): Promise<TestProvider> {
  let handler: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.end();
  let jwksRequests = 0;
  const state = { jwksDown: false };
  const server = createServer((req, res) => {
    if (req.url?.startsWith('/jwks')) {
      jwksRequests += 1;
      if (state.jwksDown) return void res.writeHead(503).end();
    }
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  let keys: ProviderKey[] = [];

  const prepare = async (signingAlg: SigningAlg): Promise<PreparedKeys> => {
    // Both an RSA and an EC key are published; the client's alg picks which one signs.
    const made = await Promise.all([makeKey('RS256'), makeKey('ES256')]);
    return {
      alg: signingAlg,
      keys: made.map((m) => m.key).sort((a) => (a.alg === signingAlg ? -1 : 1)),
      privateJwks: made.map((m) => m.privateJwk),
    };
  };
  const install = (next: PreparedKeys) => {
    keys = next.keys;
    handler = providerFor(issuer, next.alg, next.privateJwks).callback();
  };
  install(await prepare(alg));

  return {
    issuer,
    get keys() {
      return keys;
    },
    get jwksRequests() {
      return jwksRequests;
    },
    get jwksDown() {
      return state.jwksDown;
    },
    set jwksDown(v: boolean) {
      state.jwksDown = v;
    },
    obtainIdToken: (login, clientId = CLIENT_ID) => authorizationCodeFlow(issuer, clientId, login),
    prepareKeys: (next = alg) => prepare(next),
    rotateKeys: install,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Cookies by name; the provider scopes them by path, but names do not collide in one flow. */
class CookieJar {
  readonly #cookies = new Map<string, string>();
  header(): string {
    return [...this.#cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
  store(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair?.indexOf('=') ?? -1;
      if (pair && eq > 0) this.#cookies.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
    }
  }
}

async function authorizationCodeFlow(issuer: string, clientId: string, login: string): Promise<string> {
  const jar = new CookieJar();
  const send = async (url: URL, init: RequestInit = {}) => {
    const headers = new Headers(init.headers);
    headers.set('cookie', jar.header());
    const response = await fetch(url, { ...init, headers, redirect: 'manual' });
    jar.store(response);
    return response;
  };
  const authorize = new URL('/auth', issuer);
  authorize.search = new URLSearchParams({
    client_id: clientId,
    response_type: 'code',
    scope: 'openid email',
    redirect_uri: REDIRECT_URI,
    state: 'state-1',
    nonce: 'nonce-1',
  }).toString();

  let response = await send(authorize);
  for (let hop = 0; hop < 12; hop += 1) {
    const location = response.headers.get('location');
    if (!location) throw new Error(`flow stopped at ${response.status}: ${await response.text()}`);
    const next = new URL(location, issuer);
    if (next.href.startsWith(REDIRECT_URI)) {
      const code = next.searchParams.get('code');
      if (!code) throw new Error(`no code in ${next.href}`);
      return redeemCode(issuer, clientId, code);
    }
    await response.body?.cancel();
    if (!next.pathname.startsWith('/interaction/')) {
      response = await send(next);
      continue;
    }
    // devInteractions renders a login form, then a consent form; submit what it asks for.
    const page = await (await send(next)).text();
    const prompt = /name="prompt" value="(login|consent)"/.exec(page)?.[1];
    if (!prompt) throw new Error(`unexpected interaction page: ${page.slice(0, 300)}`);
    const form: Record<string, string> = prompt === 'login' ? { prompt, login, password: 'any' } : { prompt };
    response = await send(next, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form).toString(),
    });
  }
  throw new Error('authorization flow did not finish');
}

async function redeemCode(issuer: string, clientId: string, code: string): Promise<string> {
  const response = await fetch(new URL('/token', issuer), {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${clientId}:${CLIENT_SECRET}`).toString('base64')}`,
    },
    body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI }).toString(),
  });
  const body = (await response.json()) as { id_token?: string; error?: string };
  if (!response.ok || !body.id_token) throw new Error(`token endpoint: ${response.status} ${JSON.stringify(body)}`);
  return body.id_token;
}
