import type { RequestHandler } from 'express';
import type { Authenticator, Principal as Authenticated } from '@spoor/auth';
import type { OperationRole } from '@spoor/schemas';

/**
 * The caller; inside an operation also the role the operation needs (operation-route.ts), which
 * scopedProject checks against the caller's role on the project it names (issue 45).
 */
export type Principal = Authenticated & { readonly needs?: OperationRole };

/**
 * Puts the caller's principal on `res.locals`. The authenticator's refusals are AuthErrors
 * (401 with `WWW-Authenticate: Bearer`) that the error handler answers as they are.
 */
export function authGuard(authenticator: Authenticator): RequestHandler {
  return async (req, res, next) => {
    try {
      res.locals['principal'] = await authenticator.authenticate(req.headers.authorization);
      next();
    } catch (err) {
      next(err);
    }
  };
}
