/**
 * Micro-benchmark of the enrichment pipeline: µs per event when user agents and IPs repeat
 * (the caches answer, the common case) and when every event is new to both caches.
 *
 *   npx tsc -b libs/enrich && node libs/enrich/dist/test/enrich-speed.js
 *
 * Not a mocha test: timings belong in a report, not in a pass/fail gate on a shared CI box.
 */
import type { RawEvent } from '@spoor/schemas';
import { createEnrichmentPipeline, type EnrichmentPipeline } from '../src/enrichment-pipeline.js';
import { openGeoLookup, type GeoLookup } from '../src/geo-lookup.js';
import { createUserAgentParser } from '../src/user-agent-step.js';

const USER_AGENTS = [
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Safari/605.1.15',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36',
  'Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0',
  'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
];

/** Deterministic pseudo-random public-looking IPv4 addresses (a 32-bit LCG). */
function ipSequence(seed: number): () => string {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return `${1 + ((state >>> 24) % 222)}.${(state >>> 16) & 255}.${(state >>> 8) & 255}.${state & 255}`;
  };
}

function event(i: number, ip: string, userAgent: string): RawEvent {
  const now = 1_732_262_400_000 + i;
  return {
    event_id: `e${i}`,
    project_id: 'p1',
    project: 'acme/web',
    origin: 'https://acme.com',
    action: 'pageview',
    timestamp: now,
    client_timestamp: now,
    sent_at: null,
    received_at: now,
    payload: { button: 'buy', n: i },
    session_id: null,
    url: `https://acme.com/pricing?plan=pro&utm_source=news&i=${i % 7}`,
    referrer: 'https://www.google.com/',
    ip,
    user_agent: userAgent,
  };
}

function time(label: string, count: number, run: (i: number) => void): number {
  const start = process.hrtime.bigint();
  for (let i = 0; i < count; i++) run(i);
  const micros = Number(process.hrtime.bigint() - start) / 1000 / count;
  console.log(`${label.padEnd(44)} ${micros.toFixed(2).padStart(7)} µs  (${count} runs)`);
  return micros;
}

function newPipeline(geo: GeoLookup): EnrichmentPipeline {
  return createEnrichmentPipeline({ ipMode: 'hash', ipSalt: 'bench-salt', geo });
}

async function main(): Promise<void> {
  const opened = process.hrtime.bigint();
  const geo = await openGeoLookup();
  console.log(`open bundled geo databases: ${(Number(process.hrtime.bigint() - opened) / 1e6).toFixed(0)} ms`);

  // Cached: 6 user agents x 500 addresses, all seen during warm-up.
  const nextIp = ipSequence(1);
  const ips = Array.from({ length: 500 }, nextIp);
  const warm = newPipeline(geo);
  const repeated = Array.from({ length: 3000 }, (_, i) =>
    event(i, ips[i % ips.length] ?? '', USER_AGENTS[i % USER_AGENTS.length] ?? ''),
  );
  for (const raw of repeated) warm.enrich(raw);
  time('pipeline, cached (repeat UA and IP)', 200_000, (i) => warm.enrich(repeated[i % repeated.length] as RawEvent));

  // Uncached: every event has an IP and a user agent neither cache has seen.
  const cold = newPipeline(geo);
  const fresh = ipSequence(2);
  const unique = Array.from({ length: 30_000 }, (_, i) =>
    event(i, fresh(), `${USER_AGENTS[i % USER_AGENTS.length] ?? ''} r/${i}`),
  );
  time('pipeline, uncached (new UA and new IP)', unique.length, (i) => cold.enrich(unique[i] as RawEvent));

  // The two expensive parts alone, uncached.
  const parser = createUserAgentParser();
  time('  user agent parse, uncached', 30_000, (i) => parser.parse(`${USER_AGENTS[i % 5] ?? ''} u/${i}`));
  const moreIps = ipSequence(3);
  const ipList = Array.from({ length: 30_000 }, moreIps);
  time('  geo lookup (city), uncached', ipList.length, (i) => geo.lookup(ipList[i] as string));
  time('  geo lookup, cached', 200_000, (i) => geo.lookup(ipList[ipList.length - 1 - (i % 1000)] as string));
}

await main();
