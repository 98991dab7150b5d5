import { expect } from 'chai';
import { parseBearer } from '../src/bearer-header-parser.js';
import { AuthError, type AuthFailureReason } from '../src/index.js';

describe('parseBearer', function () {
  const accepted: Array<[string, string]> = [
    ['Bearer abc.def.ghi', 'abc.def.ghi'],
    ['bearer abc', 'abc'],
    ['BEARER abc', 'abc'],
    ['Bearer    abc  ', 'abc'],
    ['Bearer spk_abc-_', 'spk_abc-_'],
    ['Bearer a+b/c==', 'a+b/c=='],
  ];
  for (const [header, credential] of accepted) {
    it(`reads ${JSON.stringify(header)}`, () => expect(parseBearer(header)).to.equal(credential));
  }

  const refused: Array<[string | undefined, AuthFailureReason]> = [
    [undefined, 'missing'],
    ['', 'missing'],
    ['   ', 'missing'],
    ['Bearer', 'missing'],
    ['Bearer ', 'missing'],
    ['Basic dXNlcjpwYXNz', 'malformed'],
    ['Token abc', 'malformed'],
    ['abc.def.ghi', 'malformed'],
    ['Bearer a b', 'malformed'],
    ['Bearer <script>', 'malformed'],
    ['Bearer abc=def', 'malformed'],
    ['Bearer\tabc', 'malformed'],
    ['Bearer ' + 'a'.repeat(20_000), 'malformed'],
    ['Bearer abc, Bearer def', 'malformed'],
  ];
  for (const [header, reason] of refused) {
    it(`refuses ${JSON.stringify(header)?.slice(0, 40)} (${reason})`, () => {
      let caught: unknown;
      try {
        parseBearer(header);
      } catch (err) {
        caught = err;
      }
      expect(caught).to.be.instanceOf(AuthError);
      expect((caught as AuthError).reason).to.equal(reason);
    });
  }
});
