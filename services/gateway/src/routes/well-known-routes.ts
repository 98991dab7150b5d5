import type { BuiltInIssuer } from '@spoor/auth';
import { z } from '@spoor/schemas';
import { defineOperation, type RouteContext } from '../operation-route.js';

const Jwks = z.object({ keys: z.array(z.record(z.string(), z.unknown())) }).openapi('JsonWebKeySet');
const Discovery = z.record(z.string(), z.unknown()).openapi('OpenIdConfiguration');

/** The built-in issuer's keys and discovery document (OpenID Connect Discovery 1.0, section 4). */
export function wellKnownRoutes(ctx: RouteContext, issuer: BuiltInIssuer): void {
  defineOperation(
    ctx,
    {
      method: 'get',
      path: '/.well-known/jwks.json',
      summary: "The built-in issuer's public signing keys",
      tag: 'auth',
      auth: false,
      role: 'public',
      response: Jwks,
    },
    async () => issuer.jwks(),
  );
  defineOperation(
    ctx,
    {
      method: 'get',
      path: '/.well-known/openid-configuration',
      summary: "The built-in issuer's OpenID configuration",
      tag: 'auth',
      auth: false,
      role: 'public',
      response: Discovery,
    },
    async () => ({ ...(await issuer.discovery()) }),
  );
}
