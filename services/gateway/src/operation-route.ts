import type { OpenAPIRegistry, ResponseConfig, RouteConfig } from '@asteasolutions/zod-to-openapi';
import type { Request, RequestHandler, Router } from 'express';
import type { z } from 'zod';
import { HttpError, createError, errors, jsonBody, parseOr422, type ValidationDetail } from '@spoor/http';
import {
  DEFAULT_BODY_LIMIT,
  ErrorBody,
  HTTPValidationError,
  accessOf,
  describeFailures,
  failuresOf,
  operationId,
  type Access,
  type ErrorCode,
  type Operation,
} from '@spoor/schemas';
import type { RateLimits } from '@spoor/limits';
import type { Principal } from './auth-guard.js';
import { AuditRecorder, type AuditTrail } from './audit/audit-trail.js';

type AnyObject = z.ZodObject<z.ZodRawShape>;

export type { Access, Operation };
export { accessOf, operationId };

type Out<S> = S extends z.ZodType ? z.output<S> : undefined;

export interface OperationInput<Q, P, B> {
  query: Q;
  params: P;
  body: B;
  /** An operation with `bodyText`: the body's text as received, undefined when empty (then `body` is undefined). */
  bodyText?: string;
  principal: Principal;
  req: Request;
  /** Where the handler notes what it changed, for the audit trail (written once it succeeded). */
  audit: AuditRecorder;
}

export interface RouteContext {
  router: Router;
  registry: OpenAPIRegistry;
  authenticate: RequestHandler;
  /** The process' rate limits (issue 13); absent when only describing the API. */
  limits?: RateLimits;
  /** The process' audit trail (issue 45, item 7); absent when only describing the API. */
  audit?: AuditTrail;
}

/**
 * Runs once query and path are valid, before the body is validated: an operation that takes
 * both a project in its query and a body finds the project here, so a project of nobody answers
 * 404 whatever the body holds, as every scoped operation does (DESIGN.md, HTTP conventions).
 */
export type Preflight<Q, P> = (input: { query: Q; params: P; principal: Principal }) => Promise<unknown>;

export function defineOperation<
  Q extends AnyObject | undefined,
  P extends AnyObject | undefined,
  B extends z.ZodType | undefined,
  R extends z.ZodType,
>(
  ctx: RouteContext,
  op: Operation<Q, P, B, R>,
  handler: (input: OperationInput<Out<Q>, Out<P>, Out<B>>) => Promise<z.input<R>>,
  preflight?: Preflight<Out<Q>, Out<P>>,
): void {
  documentOperation(ctx.registry, op);
  const handlers: RequestHandler[] = [];
  if (op.auth) handlers.push(ctx.authenticate, requireAccess(accessOf(op)));
  if (op.body) {
    const options = { textPlain: op.textPlain ?? false, parse: !op.bodyText };
    handlers.push(...jsonBody(op.bodyLimit ?? DEFAULT_BODY_LIMIT, options));
  }
  handlers.push(async (req, res) => {
    // Every failure of query, path and body in one 422, as FastAPI lists them.
    const failures: ValidationDetail[] = [];
    // The role goes with the caller to the handler: scopedProject checks it (project-scope.ts).
    const authenticated = res.locals['principal'] as Principal | undefined;
    const principal = (authenticated ? { ...authenticated, needs: op.role } : undefined) as Principal;
    const query = collect(failures, () => (op.query ? parseOr422(op.query, req.query, 'query') : undefined)) as Out<Q>;
    const params = collect(failures, () =>
      op.params ? parseOr422(op.params, req.params, 'path') : undefined,
    ) as Out<P>;
    if (failures.length === 0 && preflight) await preflight({ query, params, principal });
    const text = op.bodyText ? (req.body as string | undefined) : undefined;
    if (op.bodyText && text === undefined) failures.push({ loc: ['body'], msg: 'Field required', type: 'missing' });
    const body = op.bodyText ? (undefined as Out<B>) : (collect(failures, () => parseBody(op, req.body)) as Out<B>);
    if (failures.length > 0) throw errors.validation(failures);
    // A handler notes each change once it is stored; the notes are written after the handler,
    // before the answer, also when it failed after a change (audit-trail.ts: a failed write is
    // logged, never thrown).
    const audit = new AuditRecorder();
    const written = () => (principal ? ctx.audit?.write(principal, audit, op.audit) : undefined);
    let answer: z.input<R>;
    try {
      answer = await handler({ query, params, body, bodyText: text, principal, req, audit });
    } catch (err) {
      await written();
      throw err;
    }
    await written();
    res.json(answer);
  });
  for (const path of [op.path, ...(op.aliases ?? [])])
    ctx.router[op.method](path.replace(/\{(\w+)\}/g, ':$1'), ...handlers);
}

function parseBody(op: Operation, body: unknown): unknown {
  if (!op.body) return undefined;
  if (body === undefined) throw errors.validation([{ loc: ['body'], msg: 'Field required', type: 'missing' }]);
  return parseOr422(op.body, body, 'body');
}

/** The parsed value, or undefined with its validation failures added to `into`; other errors go on. */
function collect(into: ValidationDetail[], parse: () => unknown): unknown {
  try {
    return parse();
  } catch (err) {
    if (!(err instanceof HttpError) || err.code !== 'validation_error' || typeof err.detail === 'string') throw err;
    into.push(...err.detail);
    return undefined;
  }
}

/** 403 in the documented shape, naming the scope the credential lacks (DESIGN.md, Operators). */
function requireAccess(access: Access): RequestHandler {
  return (_req, res, next) => {
    const principal = res.locals['principal'] as Principal | undefined;
    if (!principal || access === 'read') return next();
    if (access === 'write' && principal.scope === 'read') {
      return next(createError('read_only_key'));
    }
    if (access === 'operator' && !principal.operator) {
      return next(createError('operators_only'));
    }
    next();
  };
}

/** Registers the OpenAPI path of `op` (and of its aliases) without mounting it: ingest serves its own. */
export function documentOperation(registry: OpenAPIRegistry, op: Operation): void {
  for (const path of [op.path, ...(op.aliases ?? [])]) registry.registerPath(openApiRoute(op, path));
}

/** The error responses come from the error catalogue: one per status of the codes the operation may answer. */
function openApiRoute(op: Operation, path: string): RouteConfig {
  const request: RouteConfig['request'] = {};
  if (op.query) request.query = op.query;
  if (op.params) request.params = op.params;
  if (op.body) {
    const content = { schema: op.body };
    request.body = {
      required: true,
      content: op.textPlain ? { 'application/json': content, 'text/plain': content } : { 'application/json': content },
    };
  }
  return {
    method: op.method,
    path,
    summary: path === op.path ? op.summary : `${op.summary} (alias of ${op.path})`,
    operationId: operationId(op.method, path),
    tags: [op.tag],
    security: op.auth ? [{ bearerAuth: [] }] : [],
    'x-spoor-role': op.role,
    ...(op.audit && op.audit.length > 0 ? { 'x-spoor-audit': [...op.audit] } : {}),
    request,
    responses: {
      200: {
        description: op.responseDescription ?? 'Success',
        content: { 'application/json': { schema: op.response } },
      },
      ...errorResponses(failuresOf(op)),
    },
  };
}

/** The documented error responses of an operation that answers `codes`, generated from the catalogue. */
export function errorResponses(codes: readonly ErrorCode[]): Record<number, ResponseConfig> {
  return Object.fromEntries(
    [...describeFailures(codes)].map(([status, { description }]) => [
      status,
      { description, content: { 'application/json': { schema: status === 422 ? HTTPValidationError : ErrorBody } } },
    ]),
  );
}
