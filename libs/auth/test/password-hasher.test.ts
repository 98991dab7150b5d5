import { expect } from 'chai';
import { hashPassword, verifyPassword } from '../src/index.js';

describe('password-hasher', function () {
  it('stores scrypt parameters, salt and hash in one string', async () => {
    const stored = await hashPassword('correct horse battery');
    // 16-byte salt → 22 base64 characters, 32-byte key → 43, both unpadded.
    expect(stored).to.match(/^scrypt\$15\$8\$1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
    expect(await hashPassword('correct horse battery')).to.not.equal(stored);
  });

  it('verifies the right password and refuses others', async () => {
    const stored = await hashPassword('correct horse battery');
    expect(await verifyPassword('correct horse battery', stored)).to.equal(true);
    expect(await verifyPassword('correct horse batterY', stored)).to.equal(false);
    expect(await verifyPassword('', stored)).to.equal(false);
  });

  it('treats canonically equivalent spellings as one password (NFKC)', async () => {
    const composed = 'caf\u00e9 au lait';
    const decomposed = 'cafe\u0301 au lait';
    expect(await verifyPassword(decomposed, await hashPassword(composed))).to.equal(true);
  });

  it('answers false, never throws, for no hash or a corrupt one', async () => {
    const good = await hashPassword('correct horse battery');
    for (const stored of [
      null,
      '',
      'plain text',
      'bcrypt$10$abc',
      good.replace('scrypt$15$', 'scrypt$40$'), // absurd cost must not run
      good.replace('scrypt$15$8$', 'scrypt$15$999$'),
      good.split('$').slice(0, 5).join('$'),
      good.replace(/\$[^$]+$/, '$AAAA'),
    ]) {
      expect(await verifyPassword('correct horse battery', stored), String(stored)).to.equal(false);
    }
  });
});
