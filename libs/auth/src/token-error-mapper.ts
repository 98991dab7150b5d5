// Turns whatever token verification threw into an AuthError. jose's messages name the failed
// check ('"aud" claim check failed'), which helps whoever holds the token and reveals nothing
// secret; anything that is not a jose error keeps its message out of the response.
import { errors } from 'jose';
import { AuthError } from './auth-errors.js';

export function toAuthError(err: unknown): AuthError {
  if (err instanceof AuthError) return err;
  if (err instanceof errors.JWTExpired) return new AuthError('expired', 'Token expired', { cause: err });
  if (err instanceof errors.JWTClaimValidationFailed) {
    return new AuthError('invalid_token', `Invalid token: ${err.message}`, { cause: err });
  }
  if (err instanceof errors.JOSEAlgNotAllowed || err instanceof errors.JOSENotSupported) {
    return new AuthError('invalid_token', 'Invalid token: signing algorithm not allowed', { cause: err });
  }
  if (err instanceof errors.JWKSNoMatchingKey) {
    return new AuthError('invalid_token', 'Invalid token: no key of the issuer matches it', { cause: err });
  }
  if (err instanceof errors.JWKSTimeout) {
    return new AuthError('issuer_unavailable', 'The identity provider did not answer; try again later', { cause: err });
  }
  if (err instanceof errors.JWSSignatureVerificationFailed) {
    return new AuthError('invalid_token', 'Invalid token: signature verification failed', { cause: err });
  }
  return new AuthError('invalid_token', 'Invalid token', { cause: err });
}

/** Runs a verification step; every failure comes out as an AuthError. */
export async function refuseOnError<T>(step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (err) {
    throw toAuthError(err);
  }
}
