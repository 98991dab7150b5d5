// Assertions shared by the auth tests: a refusal must be an AuthError (401 with
// `WWW-Authenticate: Bearer`), never any other error.
import { expect } from 'chai';
import { AuthError, type AuthFailureReason } from '../src/index.js';

export async function expectAuthError(work: Promise<unknown>, reason?: AuthFailureReason): Promise<AuthError> {
  let caught: unknown;
  try {
    await work;
  } catch (err) {
    caught = err;
  }
  expect(caught, 'expected a refusal').to.be.instanceOf(Error);
  if (!(caught instanceof AuthError)) {
    throw new Error(`expected AuthError, got ${String((caught as Error).name)}: ${String((caught as Error).message)}`);
  }
  expect(caught.status).to.equal(401);
  expect(caught.headers).to.deep.equal({ 'WWW-Authenticate': 'Bearer' });
  expect(caught.detail).to.be.a('string').and.not.equal('');
  if (reason) expect(caught.reason, String(caught.detail)).to.equal(reason);
  return caught;
}
