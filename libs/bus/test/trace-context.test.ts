import { expect } from 'chai';
import { continueTrace, traceIdOf, traceIdsOf, type DeliveredMessage } from '../src/index.js';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const VALID = /^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/;

describe('trace context (W3C traceparent)', () => {
  it('continues a valid incoming trace with a new span id and its flags', () => {
    for (const incoming of [
      `00-${TRACE}-00f067aa0ba902b7-01`,
      `00-${TRACE}-00f067aa0ba902b7-00`,
      ` 00-${TRACE.toUpperCase()}-00F067AA0BA902B7-01 `,
    ]) {
      const next = continueTrace(incoming);
      expect(next, incoming).to.match(VALID);
      expect(traceIdOf(next)).to.equal(TRACE);
      expect(next.slice(36, 52)).to.not.equal('00f067aa0ba902b7');
      expect(next.slice(-2)).to.equal(incoming.trim().slice(-2));
    }
  });

  it('starts a new sampled trace for a missing or malformed header', () => {
    const bad = [
      undefined,
      '',
      'garbage',
      `01-${TRACE}-00f067aa0ba902b7-01`,
      `00-${'0'.repeat(32)}-00f067aa0ba902b7-01`,
      `00-${TRACE}-${'0'.repeat(16)}-01`,
      `00-${TRACE}-00f067aa0ba902b7`,
      `00-${TRACE}x-00f067aa0ba902b7-01`,
    ];
    const ids = new Set<string>();
    for (const incoming of bad) {
      const next = continueTrace(incoming);
      expect(next, String(incoming)).to.match(VALID);
      expect(next.endsWith('-01')).to.equal(true);
      expect(traceIdOf(next)).to.not.equal(TRACE);
      ids.add(traceIdOf(next)!);
    }
    expect(ids.size).to.equal(bad.length);
  });

  it("lists a batch's distinct trace ids, at most the number asked", () => {
    const m = (traceparent?: string): DeliveredMessage => ({
      topic: 't',
      partition: 0,
      offset: '0',
      key: 'k',
      value: 'v',
      ...(traceparent ? { headers: { traceparent } } : {}),
    });
    const a = continueTrace(undefined);
    const b = continueTrace(undefined);
    expect(traceIdsOf([m(a), m(), m(a), m('nonsense'), m(b)])).to.deep.equal([traceIdOf(a), traceIdOf(b)]);
    expect(
      traceIdsOf(
        Array.from({ length: 30 }, () => m(continueTrace(undefined))),
        10,
      ),
    ).to.have.length(10);
  });
});
