import type { RequestHandler } from 'express';
import type { Authenticator, Principal } from '@spoor/auth';

export type { Principal };

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
