import { InvalidCredentialsError, type ApiKeyService, type Authenticator, type BuiltInIssuer } from '@spoor/auth';
import { clientKey, LoginGuard } from '@spoor/limits';
import { createError, errors } from '@spoor/http';
import {
  Account,
  ApiKeyList,
  ApiKeyPath,
  CreatedApiKey,
  Credentials,
  Deleted,
  LoggedOut,
  TokenResponse,
  UserAPIKeyRequest,
} from '@spoor/schemas';
import type { Store } from '@spoor/store';
import { defineOperation, type RouteContext } from '../operation-route.js';

// The auth library's errors are HttpErrors of the shared catalogue (409 taken email or key
// name, 401 bad credentials, 422 rule breaks): they pass through to the one error handler.
export function accountRoutes(
  ctx: RouteContext,
  store: Store,
  issuer: BuiltInIssuer,
  apiKeys: ApiKeyService,
  authenticator: Authenticator,
): void {
  // Brute force: failed logins back off per account and per address (libs/limits, issue 13).
  const guard = ctx.limits ? new LoginGuard(ctx.limits) : null;
  defineOperation(
    ctx,
    {
      method: 'post',
      path: '/v1/auth/signup',
      summary: 'Create an account on the built-in issuer; answers an ID token',
      tag: 'auth',
      auth: false,
      role: 'public',
      body: Credentials,
      response: TokenResponse,
      failures: ['email_taken', 'rate_limited'],
    },
    async ({ body, req }) => {
      await ctx.limits?.spend('signup_ip', clientKey(req.ip ?? ''));
      const { id_token, expires_at } = await issuer.signup(body.email, body.password);
      return { id_token, expires_at };
    },
  );

  defineOperation(
    ctx,
    {
      method: 'post',
      path: '/v1/auth/login',
      summary: 'Log in on the built-in issuer; answers an ID token',
      tag: 'auth',
      auth: false,
      role: 'public',
      body: Credentials,
      response: TokenResponse,
      failures: ['unauthorized', 'rate_limited'],
    },
    async ({ body, req }) => {
      const ip = req.ip ?? '';
      await guard?.check(body.email, ip);
      try {
        const { id_token, expires_at } = await issuer.login(body.email, body.password);
        await guard?.succeeded(body.email, ip);
        return { id_token, expires_at };
      } catch (err) {
        if (err instanceof InvalidCredentialsError) await guard?.failed(body.email, ip);
        throw err;
      }
    },
  );

  // Logging out changes none of the account's data, so a read-only key's holder may call it
  // too (it answers 400: there is no token to revoke, keys are revoked by name).
  defineOperation(
    ctx,
    {
      method: 'post',
      path: '/v1/auth/logout',
      summary: 'Revoke the ID token this request carries; later requests with it get 401',
      tag: 'auth',
      auth: true,
      role: 'account',
      access: 'read',
      response: LoggedOut,
      failures: ['api_key_logout'],
    },
    async ({ principal }) => {
      if (!principal.token || !(await authenticator.logout(principal))) {
        throw createError('api_key_logout');
      }
      return { revoked: true as const, expires_at: principal.token.expires_at };
    },
  );

  defineOperation(
    ctx,
    {
      method: 'get',
      path: '/v1/users/account',
      summary: 'Profile of the authenticated user',
      tag: 'account',
      auth: true,
      role: 'account',
      response: Account,
    },
    async ({ principal }) => {
      const account = await store.accounts.get(principal.account_id);
      return { account_id: principal.account_id, email: account?.email ?? principal.email };
    },
  );

  defineOperation(
    ctx,
    {
      method: 'get',
      path: '/v1/users/apikey',
      summary: 'API keys of the user (never the secret)',
      tag: 'account',
      auth: true,
      role: 'account',
      response: ApiKeyList,
    },
    async ({ principal }) => ({ api_keys: await apiKeys.list(principal.account_id) }),
  );

  defineOperation(
    ctx,
    {
      method: 'post',
      path: '/v1/users/apikey',
      summary: 'Create an API key (scope full, read or operator); the secret is shown once',
      tag: 'account',
      auth: true,
      role: 'account',
      body: UserAPIKeyRequest,
      response: CreatedApiKey,
      failures: ['operator_key_refused', 'api_key_name_taken'],
    },
    async ({ body, principal }) => {
      if (body.scope === 'operator' && !principal.operator) {
        throw createError('operator_key_refused');
      }
      return apiKeys.create(principal.account_id, body.api_key_name, body.scope);
    },
  );

  defineOperation(
    ctx,
    {
      method: 'delete',
      path: '/v1/users/apikey/{api_key_name}',
      summary: 'Delete (revoke) the named API key',
      tag: 'account',
      auth: true,
      role: 'account',
      params: ApiKeyPath,
      response: Deleted,
      failures: ['not_found'],
    },
    async ({ params, principal }) => {
      if (!(await apiKeys.revoke(principal.account_id, params.api_key_name)))
        throw errors.notFound('API key not found');
      return { deleted: true };
    },
  );
}
