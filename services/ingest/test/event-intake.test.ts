import { expect } from 'chai';
import type { ProjectRecord } from '@spoor/schemas';
import { partitionKey, stampEvent } from '../src/event-intake.js';
import { uuidv7 } from '../src/event-id.js';

const project: ProjectRecord = {
  project_id: 'p1',
  origin: 'https://a.example',
  project: 'a/web',
  account_id: 'acct',
  verified: false,
  verification_token: 't',
  created_at: 0,
};
const facts = { originHeader: undefined, ip: '203.0.113.9', userAgent: 'UA' };

describe('stampEvent', () => {
  it('corrects the timestamp by the client clock skew from sent_at', () => {
    // The client clock runs 5 s behind: it stamped 10:00:00 and sent at 10:00:02 by its clock.
    const raw = stampEvent(
      { project: 'a/web', action: 'x', timestamp: 1_000_000, sent_at: 1_002_000, payload: {} },
      project,
      facts,
      1_007_000,
    );
    expect(raw.timestamp).to.equal(1_005_000);
    expect(raw.client_timestamp).to.equal(1_000_000);
    expect(raw.received_at).to.equal(1_007_000);
  });

  it('takes a difference under two seconds for network latency and leaves the timestamp alone', () => {
    for (const sentAt of [1_006_000, 1_005_001, 1_008_999]) {
      const raw = stampEvent(
        { project: 'a/web', action: 'x', timestamp: 1_000_000, sent_at: sentAt, payload: {} },
        project,
        facts,
        1_007_000,
      );
      expect(raw.timestamp, `sent_at ${sentAt}`).to.equal(1_000_000);
    }
    // Exactly two seconds ahead of the client: corrected.
    expect(
      stampEvent(
        { project: 'a/web', action: 'x', timestamp: 1_000_000, sent_at: 1_005_000, payload: {} },
        project,
        facts,
        1_007_000,
      ).timestamp,
    ).to.equal(1_002_000);
  });

  it('keeps a client event_id and gives others a time-ordered one', () => {
    expect(
      stampEvent({ project: 'a/web', action: 'x', timestamp: 1, event_id: 'mine', payload: {} }, project, facts, 5)
        .event_id,
    ).to.equal('mine');
    const generated = stampEvent(
      { project: 'a/web', action: 'x', timestamp: 1, payload: {} },
      project,
      facts,
      5,
    ).event_id;
    expect(generated).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('keys a session onto one partition, derived or explicit', () => {
    const a = stampEvent({ project: 'a/web', action: 'x', timestamp: 1, payload: {} }, project, facts, 5);
    const b = stampEvent({ project: 'a/web', action: 'y', timestamp: 2, payload: {} }, project, facts, 6);
    expect(partitionKey(a)).to.equal(partitionKey(b));
    const c = stampEvent(
      { project: 'a/web', action: 'y', timestamp: 2, session_id: 's', payload: {} },
      project,
      facts,
      6,
    );
    expect(partitionKey(c)).to.equal('p1:s:s');
  });
});

describe('uuidv7', () => {
  it('sorts by time', () => {
    const ids = [1_700_000_000_000, 1_700_000_000_001, 1_800_000_000_000].map(uuidv7);
    expect([...ids].sort()).to.deep.equal(ids);
  });
});
