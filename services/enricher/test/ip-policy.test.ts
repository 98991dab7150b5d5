// Each project's IP policy (issue 17) through the enricher on the embedded store: raw and
// enriched rows store the IP as the project's policy says, a project without one follows
// SPOOR_IP_MODE, and a change applies once the cached policy is older than its TTL.
import { join } from 'node:path';
import { rm } from 'node:fs/promises';
import { expect } from 'chai';
import type { DeliveredMessage } from '@spoor/bus';
import { createEnrichmentPipeline, EMPTY_GEO_LOOKUP, hashIp } from '@spoor/enrich';
import { MemoryKv } from '@spoor/kv';
import { createLogger } from '@spoor/service-log';
import type { RawEvent } from '@spoor/schemas';
import { openStore, type Store } from '@spoor/store';
import { makeTempDir } from '@spoor/testkit';
import { localDedupWindow } from '../src/dedup-window.js';
import { EnricherService } from '../src/enricher-service.js';
import { IP_POLICY_TTL_MS, IpPolicyCache } from '../src/ip-policy-cache.js';

const T0 = Date.UTC(2026, 10, 25, 9);
const IP = '203.0.113.9';
let offset = 0;

function message(projectId: string, eventId: string): DeliveredMessage {
  const raw: RawEvent = {
    project_id: projectId,
    event_id: eventId,
    project: projectId,
    origin: 'https://acme.example',
    action: 'click',
    timestamp: T0,
    client_timestamp: T0,
    sent_at: null,
    received_at: T0,
    payload: {},
    session_id: 's-1',
    url: 'https://acme.example/a',
    referrer: null,
    ip: IP,
    user_agent: 'Mozilla/5.0 Firefox/133.0',
  };
  return { topic: 'events.raw', partition: 0, offset: String(offset++), key: projectId, value: JSON.stringify(raw) };
}

describe('Enricher: per-project IP policy', function () {
  this.timeout(60_000);
  let dir: string;
  let store: Store;
  let now: number;
  let reads: number;
  let service: EnricherService;
  const stored = async (projectId: string, eventId: string) => ({
    raw: (await store.events.listRaw(projectId, { limit: 100 })).find((e) => e.event_id === eventId)?.ip,
    enriched: (await store.events.listEnriched(projectId, { limit: 100 })).find((e) => e.event_id === eventId)?.ip,
  });

  before(async function () {
    dir = await makeTempDir('spoor-ip-policy-');
    store = await openStore({ kind: 'duckdb', path: join(dir, 'spoor.duckdb') });
    await store.migrate();
    const base = {
      origin: 'https://acme.example',
      account_id: 'a',
      verified: false,
      verification_token: 't',
      created_at: T0,
    };
    for (const [id, ip_policy] of [
      ['p-hash', 'hash'],
      ['p-truncate', 'truncate'],
      ['p-default', null],
    ] as const) {
      await store.projects.create({ ...base, project_id: id, project: id, ip_policy });
    }
    now = T0;
    reads = 0;
    // Counts the store reads: the policy is read per project and TTL, never per event.
    const projects = {
      get: (id: string) => {
        reads++;
        return store.projects.get(id);
      },
    };
    service = new EnricherService({
      store,
      kv: new MemoryKv(),
      dedup: localDedupWindow(),
      pipeline: createEnrichmentPipeline({ ipMode: 'full', ipSalt: 'salt', geo: EMPTY_GEO_LOOKUP, clock: () => T0 }),
      ipPolicies: new IpPolicyCache(projects, 'full', () => now),
      output: async () => {},
      logger: createLogger('test', 'error', () => {}),
    });
  });

  after(async function () {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("stores the raw and the enriched IP as each project's policy says, reading each policy once", async function () {
    const batch = ['p-hash', 'p-truncate', 'p-default'].flatMap((p) => [message(p, `${p}-1`), message(p, `${p}-2`)]);
    await service.handle(batch);
    const hashed = hashIp(IP, 'salt');
    expect(await stored('p-hash', 'p-hash-1')).to.deep.equal({ raw: hashed, enriched: hashed });
    expect(await stored('p-truncate', 'p-truncate-2')).to.deep.equal({ raw: '203.0.113.0', enriched: '203.0.113.0' });
    expect(await stored('p-default', 'p-default-1'), 'no policy: SPOOR_IP_MODE').to.deep.equal({
      raw: IP,
      enriched: IP,
    });
    expect(reads).to.equal(3);
  });

  it('applies a changed policy once the cached one is older than its TTL', async function () {
    await store.projects.updateSettings('p-default', { ip_policy: 'truncate' });
    now += IP_POLICY_TTL_MS - 1;
    await service.handle([message('p-default', 'p-default-3')]);
    expect((await stored('p-default', 'p-default-3')).enriched, 'within the TTL').to.equal(IP);
    now += 2;
    await service.handle([message('p-default', 'p-default-4')]);
    expect(await stored('p-default', 'p-default-4')).to.deep.equal({ raw: '203.0.113.0', enriched: '203.0.113.0' });
    expect((await stored('p-default', 'p-default-1')).enriched, 'stored before the change: kept').to.equal(IP);
  });
});
