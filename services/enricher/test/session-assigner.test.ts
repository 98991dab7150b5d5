import { expect } from 'chai';
import { MemoryKv } from '@spoor/kv';
import { assignSessions, SESSION_GAP_MS } from '../src/session-assigner.js';

const at = (timestamp: number, sessionKey = 'visitor-1', session_id: string | null = null) => ({
  draft: { project_id: 'p', timestamp, session_id },
  sessionKey,
});
/** assignSessions fills each draft's session_id in place; the tests read them back. */
async function assign(items: ReturnType<typeof at>[], kv: MemoryKv) {
  await assignSessions(items, kv);
  return items.map((i) => i.draft);
}
const DAY = 86_400_000;

describe('assignSessions', () => {
  it('keeps a visitor in one session until 30 minutes pass without events', async () => {
    const kv = new MemoryKv();
    const t0 = 100 * DAY + 3_600_000;
    const first = await assign([at(t0), at(t0 + SESSION_GAP_MS - 1)], kv);
    const later = await assign([at(t0 + 2 * SESSION_GAP_MS)], kv);
    expect(first[0]!.session_id).to.equal(first[1]!.session_id);
    expect(later[0]!.session_id).to.not.equal(first[0]!.session_id);
    await kv.close();
  });

  it('starts a new session on a new UTC day and keeps visitors apart', async () => {
    const kv = new MemoryKv();
    const midnight = 200 * DAY;
    const out = await assign([at(midnight - 60_000), at(midnight + 60_000), at(midnight + 60_000, 'visitor-2')], kv);
    expect(new Set(out.map((e) => e.session_id)).size).to.equal(3);
    await kv.close();
  });

  it('leaves a client session id alone', async () => {
    const kv = new MemoryKv();
    const [e] = await assign([at(1, 'v', 'client-session')], kv);
    expect(e!.session_id).to.equal('client-session');
    await kv.close();
  });
});
