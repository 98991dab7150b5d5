import { expect } from 'chai';
import { HttpError } from '@spoor/http';
import { checkApiKeyName, checkPassword, normalizeEmail } from '../src/index.js';

/** The 422 of a broken credential rule (the catalogue's validation_error), or null. */
function ruleError(fn: () => unknown): HttpError | null {
  try {
    fn();
    return null;
  } catch (err) {
    if (err instanceof HttpError && err.code === 'validation_error') return err;
    throw err;
  }
}

describe('credential-rules', function () {
  const passwords: Array<[string, unknown, boolean]> = [
    ['7 characters', '1234567', false],
    ['8 characters', '12345678', true],
    ['256 characters', 'a'.repeat(256), true],
    ['257 characters', 'a'.repeat(257), false],
    ['8 emoji count as 8 characters (16 UTF-16 units)', '😀'.repeat(8), true],
    ['4 emoji are too short though 8 UTF-16 units', '😀'.repeat(4), false],
    ['129 emoji fit though 258 UTF-16 units', '😀'.repeat(129), true],
    ['not a string', 12345678, false],
  ];
  for (const [name, password, ok] of passwords) {
    it(`password: ${name} → ${ok ? 'accepted' : '422'}`, () => {
      const err = ruleError(() => checkPassword(password));
      expect(err === null).to.equal(ok);
      if (err) expect(err.status).to.equal(422);
    });
  }

  const emails: Array<[unknown, string | null]> = [
    ['Alice@Example.COM', 'alice@example.com'],
    ['  bob@example.com ', 'bob@example.com'],
    ['a@b', 'a@b'],
    ['no-at-sign', null],
    ['two@@example.com', null],
    ['sp ace@example.com', null],
    ['@example.com', null],
    [`${'x'.repeat(250)}@e.co`, null],
    [null, null],
  ];
  for (const [email, expected] of emails) {
    it(`email: ${JSON.stringify(email)?.slice(0, 40)} → ${expected ?? '422'}`, () => {
      if (expected === null) expect(ruleError(() => normalizeEmail(email))?.status).to.equal(422);
      else expect(normalizeEmail(email)).to.equal(expected);
    });
  }

  const names: Array<[unknown, boolean]> = [
    ['ci', true],
    ['deploy-bot_2.prod', true],
    ['x'.repeat(64), true],
    ['x'.repeat(65), false],
    ['', false],
    ['has space', false],
    ['slash/name', false],
    ['ünïcode', false],
    [42, false],
  ];
  for (const [name, ok] of names) {
    it(`api key name: ${JSON.stringify(name)?.slice(0, 30)} → ${ok ? 'accepted' : '422'}`, () => {
      expect(ruleError(() => checkApiKeyName(name)) === null).to.equal(ok);
    });
  }
});
