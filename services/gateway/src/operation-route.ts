import type { OpenAPIRegistry, RouteConfig } from '@asteasolutions/zod-to-openapi';
import type { Request, RequestHandler, Router } from 'express';
import type { z } from 'zod';
import { errors, jsonBody, parseOr422 } from '@spoor/http';
import { ErrorBody, HTTPValidationError } from '@spoor/schemas';
import type { RateLimits } from '@spoor/limits';
import type { Principal } from './auth-guard.js';

type AnyObject = z.ZodObject<z.ZodRawShape>;

/**
 * Which credentials an authenticated operation takes: `read` any, `write` any but a read-only
 * API key, `operator` an operator's only (auth-guard.ts, Principal.operator).
 */
export type Access = 'read' | 'write' | 'operator';

/**
 * One declaration per operation: the same object mounts the express handler (with validation
 * of query, path and body) and registers the OpenAPI path, so the document can never drift
 * from what the server does.
 */
export interface Operation<Q extends AnyObject | undefined, P extends AnyObject | undefined, B extends z.ZodType | undefined, R extends z.ZodType> {
  method: 'get' | 'post' | 'delete';
  /** OpenAPI form: `/v1/sessions/{session_id}`. */
  path: string;
  /** Other spellings served the same way (e.g. `/v1/event` for `/v1/events`). */
  aliases?: string[];
  summary: string;
  tag: string;
  auth: boolean;
  /**
   * Default: `read` for GET, `write` for every other method, so a new operation that changes
   * something can never be called with a read-only key by mistake. Override only to narrow
   * (`operator`) or for an operation that changes nothing of the account's data (logout).
   */
  access?: Access;
  query?: Q;
  params?: P;
  body?: B;
  response: R;
  /** Documented failures besides 422 (and 401 when auth is on). */
  failures?: number[];
  /** Largest JSON body accepted, in bytes (default 256 KB). */
  bodyLimit?: number;
}

type Out<S> = S extends z.ZodType ? z.output<S> : undefined;

export interface OperationInput<Q, P, B> {
  query: Q;
  params: P;
  body: B;
  principal: Principal;
  req: Request;
}

const FAILURE_TEXT: Record<number, string> = {
  400: 'Malformed JSON',
  401: 'Missing or invalid credentials',
  403: 'Forbidden (for example an unverified domain)',
  503: 'Temporarily unavailable; retry',
  404: 'Unknown, or belongs to another account',
  409: 'Conflict',
  413: 'Body too large',
  415: 'Unsupported content type: the body must be application/json',
  429: 'Too many requests; retry after the Retry-After seconds',
};

export interface RouteContext {
  router: Router;
  registry: OpenAPIRegistry;
  authenticate: RequestHandler;
  /** The process' rate limits (issue 13); absent when only describing the API. */
  limits?: RateLimits;
}

export function defineOperation<Q extends AnyObject | undefined, P extends AnyObject | undefined, B extends z.ZodType | undefined, R extends z.ZodType>(
  ctx: RouteContext,
  op: Operation<Q, P, B, R>,
  handler: (input: OperationInput<Out<Q>, Out<P>, Out<B>>) => Promise<z.input<R>>,
): void {
  for (const path of [op.path, ...(op.aliases ?? [])]) ctx.registry.registerPath(openApiRoute(op, path));
  const handlers: RequestHandler[] = [];
  if (op.auth) handlers.push(ctx.authenticate, requireAccess(accessOf(op)));
  if (op.body) handlers.push(...jsonBody(op.bodyLimit ?? 256 * 1024));
  handlers.push(async (req, res) => {
    const query = (op.query ? parseOr422(op.query, req.query, 'query') : undefined) as Out<Q>;
    const params = (op.params ? parseOr422(op.params, req.params, 'path') : undefined) as Out<P>;
    if (op.body && req.body === undefined) throw errors.validation([{ loc: ['body'], msg: 'Field required', type: 'missing' }]);
    const body = (op.body ? parseOr422(op.body, req.body, 'body') : undefined) as Out<B>;
    res.json(await handler({ query, params, body, principal: res.locals['principal'] as Principal, req }));
  });
  for (const path of [op.path, ...(op.aliases ?? [])]) ctx.router[op.method](path.replace(/\{(\w+)\}/g, ':$1'), ...handlers);
}

export function accessOf(op: { method: string; access?: Access | undefined }): Access {
  return op.access ?? (op.method === 'get' ? 'read' : 'write');
}

/** 403 in the documented shape, naming the scope the credential lacks (DESIGN.md, Operators). */
function requireAccess(access: Access): RequestHandler {
  return (_req, res, next) => {
    const principal = res.locals['principal'] as Principal | undefined;
    if (!principal || access === 'read') return next();
    if (access === 'write' && principal.scope === 'read') {
      return next(errors.forbidden('This API key has scope "read" and may only read; use an API key with scope "full" or an ID token'));
    }
    if (access === 'operator' && !principal.operator) {
      return next(errors.forbidden('Operators only: an ID token of an account named in SPOOR_ADMIN_EMAILS, or an API key with scope "operator"'));
    }
    next();
  };
}

const ACCESS_403: Record<Access, string | null> = {
  read: null,
  write: 'a read-only API key (scope "read")',
  operator: 'not an operator (SPOOR_ADMIN_EMAILS, or an API key with scope "operator")',
};

function failureText(status: number, op: { auth: boolean; method: string; access?: Access | undefined; failures?: number[] | undefined }): string {
  const scope = op.auth ? ACCESS_403[accessOf(op)] : null;
  if (status !== 403 || scope === null) return FAILURE_TEXT[status] ?? 'Error';
  return op.failures?.includes(403) ? `${FAILURE_TEXT[403]}, or ${scope}` : `Forbidden: ${scope}`;
}

function openApiRoute(op: Operation<AnyObject | undefined, AnyObject | undefined, z.ZodType | undefined, z.ZodType>, path: string): RouteConfig {
  const byAccess = op.auth && accessOf(op) !== 'read' ? [403] : [];
  // Every body is JSON: another content type (text/plain included) answers 415 (jsonBody).
  const byBody = op.body ? [415] : [];
  const failures = [...new Set([...(op.auth ? [401] : []), ...byAccess, ...(op.failures ?? []), ...byBody])];
  const request: RouteConfig['request'] = {};
  if (op.query) request.query = op.query;
  if (op.params) request.params = op.params;
  if (op.body) request.body = { required: true, content: { 'application/json': { schema: op.body } } };
  return {
    method: op.method,
    path,
    summary: path === op.path ? op.summary : `${op.summary} (alias of ${op.path})`,
    operationId: operationId(op.method, path),
    tags: [op.tag],
    security: op.auth ? [{ bearerAuth: [] }] : [],
    request,
    responses: {
      200: { description: 'Success', content: { 'application/json': { schema: op.response } } },
      422: { description: 'Validation error', content: { 'application/json': { schema: HTTPValidationError } } },
      ...Object.fromEntries(failures.map((s) => [s, { description: failureText(s, op), content: { 'application/json': { schema: ErrorBody } } }])),
    },
  };
}

/** A stable operation id from method and path: `get_sessions_session_id_events`. */
export function operationId(method: string, path: string): string {
  return `${method}_${path.replace(/^\/v1\//, '').replace(/[{}]/g, '').replace(/[^A-Za-z0-9]+/g, '_').replace(/_+$/, '')}`;
}
