// The audit trail's writing side (issue 45, item 7; docs/security.md, Audit trail): entries carry
// the actor as authenticated; a store that fails does not fail the request, the entry is logged
// at error level whole and counted; URLs keep only scheme and host; only changed fields are kept.
import { expect } from 'chai';
import { createLogger } from '@spoor/service-log';
import type { AuditRecord, AuditRepository } from '@spoor/store';
import { AuditRecorder, AuditTrail, changedFields, newEntryId, urlShown } from '../src/audit/audit-trail.js';
import type { Principal } from '../src/auth-guard.js';

const AT = Date.UTC(2026, 0, 1);
const keyPrincipal: Principal = {
  account_id: 'acct-1',
  email: 'owner@example.com',
  via: 'api_key',
  api_key_name: 'ci',
  scope: 'full',
  operator: false,
  token: null,
};

function audit(append: (e: AuditRecord[]) => Promise<void>): AuditRepository {
  return { append, list: () => Promise.resolve([]), expire: () => Promise.resolve() };
}

describe('AuditTrail', function () {
  it('writes the notes of a request as entries by its caller, in order', async () => {
    const written: AuditRecord[] = [];
    const trail = new AuditTrail({
      store: { audit: audit(async (e) => void written.push(...e)) },
      clock: () => AT,
    });
    const recorder = new AuditRecorder();
    recorder.record({ project_id: 'p1' }, { action: 'ownership.transferred', target: { kind: 'member', id: 'a2' } });
    recorder.record(
      { project_id: 'p1' },
      {
        action: 'member.role_changed',
        target: { kind: 'member', id: 'acct-1', name: 'owner@example.com' },
        changes: { role: { before: 'owner', after: 'admin' } },
      },
    );
    await trail.write(keyPrincipal, recorder, ['ownership.transferred', 'member.role_changed']);
    expect(written.map(({ entry_id: _id, ...rest }) => rest)).to.deep.equal([
      {
        project_id: 'p1',
        made_at: AT,
        actor_id: 'acct-1',
        actor_email: 'owner@example.com',
        via: 'api_key',
        api_key_name: 'ci',
        action: 'ownership.transferred',
        target_kind: 'member',
        target_id: 'a2',
        target_name: null,
        changes: {},
      },
      {
        project_id: 'p1',
        made_at: AT,
        actor_id: 'acct-1',
        actor_email: 'owner@example.com',
        via: 'api_key',
        api_key_name: 'ci',
        action: 'member.role_changed',
        target_kind: 'member',
        target_id: 'acct-1',
        target_name: 'owner@example.com',
        changes: { role: { before: 'owner', after: 'admin' } },
      },
    ]);
    // Newest first lists the later note of the same instant first.
    expect(written[1]!.entry_id > written[0]!.entry_id).to.equal(true);
  });

  it('writes nothing for a request that noted nothing', async () => {
    let calls = 0;
    const trail = new AuditTrail({ store: { audit: audit(async () => void calls++) }, clock: () => AT });
    await trail.write(keyPrincipal, new AuditRecorder(), []);
    expect(calls).to.equal(0);
  });

  it('does not throw when the store fails: logs the whole entry at error level and counts it', async () => {
    const lines: string[] = [];
    const trail = new AuditTrail({
      store: { audit: audit(() => Promise.reject(new Error('store down'))) },
      clock: () => AT,
      logger: createLogger('audit', 'info', (l) => void lines.push(l)),
    });
    const recorder = new AuditRecorder();
    recorder.record({ project_id: 'p1' }, { action: 'rule.created', target: { kind: 'rule', id: 'r1' } });
    await trail.write(keyPrincipal, recorder, ['rule.created']);
    expect(trail.stats()).to.deep.equal({ audit_write_failures: 1 });
    expect(lines).to.have.length(1);
    const logged = JSON.parse(lines[0]!) as Record<string, any>;
    expect(logged).to.include({ level: 'error', error: 'store down' });
    expect(logged['entry']).to.include({ project_id: 'p1', action: 'rule.created', actor_id: 'acct-1', made_at: AT });
  });

  it('logs an action its operation did not declare, and writes it all the same', async () => {
    const lines: string[] = [];
    const written: AuditRecord[] = [];
    const trail = new AuditTrail({
      store: { audit: audit(async (e) => void written.push(...e)) },
      clock: () => AT,
      logger: createLogger('audit', 'info', (l) => void lines.push(l)),
    });
    const recorder = new AuditRecorder();
    recorder.record({ project_id: 'p1' }, { action: 'rule.created', target: { kind: 'rule', id: 'r1' } });
    await trail.write(keyPrincipal, recorder, undefined);
    expect(written).to.have.length(1);
    expect(lines.join('')).to.include('audit action not declared by its operation');
  });
});

describe('audit helpers', function () {
  it('urlShown keeps scheme and host only (a chat URL carries its token in the path)', () => {
    const cases: Array<[string | null, string | null]> = [
      ['https://hooks.slack.com/services/T0/B0/SECRET', 'https://hooks.slack.com'],
      ['https://user:pass@example.com:8443/x?token=SECRET#frag', 'https://example.com:8443'],
      ['http://127.0.0.1:9/hook', 'http://127.0.0.1:9'],
      ['not a url', null],
      [null, null],
    ];
    for (const [url, shown] of cases) expect(urlShown(url), String(url)).to.equal(shown);
  });

  it('changedFields keeps the fields that differ, compared as JSON; null for what is absent', () => {
    type R = { a: number; b: string[]; c: string | null };
    const before: R = { a: 1, b: ['x'], c: null };
    expect(changedFields(before, { a: 1, b: ['x'], c: 'new' }, ['a', 'b', 'c'])).to.deep.equal({
      c: { before: null, after: 'new' },
    });
    expect(changedFields(null, before, ['a', 'c'])).to.deep.equal({ a: { before: null, after: 1 } });
    expect(changedFields(before, null, ['b'])).to.deep.equal({ b: { before: ['x'], after: null } });
  });

  it('newEntryId sorts by time first', () => {
    expect(newEntryId(AT + 1) > newEntryId(AT)).to.equal(true);
    expect(newEntryId(AT)).to.match(/^[0-9a-f]{28}$/);
  });
});
