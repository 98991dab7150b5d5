/// <reference types="mocha" />
import { expect } from 'chai';
import fc from 'fast-check';
import { IngestEvent, wellFormedIngestEvent } from '../src/events.js';

// Strings around each field's limits (0, 1, 128, 200, 512, 4096 and one past), in one or two
// UTF-16 units per character: zod counts units.
const sized = fc
  .constantFrom(0, 1, 2, 127, 128, 129, 199, 200, 201, 511, 512, 513, 4095, 4096, 4097)
  .chain((n) => fc.constantFrom('a'.repeat(n), 'é'.repeat(n), '😀'.repeat(Math.ceil(n / 2))));
const epochish = fc.oneof(
  fc.constantFrom(0, -0, -1, 1.5, 8.64e15, 8.64e15 + 1, Number.MAX_SAFE_INTEGER, 1732262400000),
  fc.integer(),
  fc.double(),
);
const value = fc.oneof(
  sized,
  epochish,
  fc.constantFrom(null, true, false, [], {}, [1], { a: 1 }),
  fc.jsonValue({ maxDepth: 3 }),
);
const payload = fc.oneof(
  fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 3 })),
  fc.constantFrom(
    JSON.parse('{"__proto__":{"admin":true},"x":1}') as unknown,
    JSON.parse('{"2":"b","1":"a","z":0}') as unknown,
    Object.assign(Object.create(null) as object, { a: 1 }),
  ),
  value,
);
// Mostly what a tracker sends, so that whole events pass often; now and then anything.
const field = <T>(usual: fc.Arbitrary<T>, odd: fc.Arbitrary<unknown> = fc.oneof(sized, value)) =>
  fc.option(fc.oneof({ arbitrary: usual, weight: 12 }, { arbitrary: odd, weight: 1 }), { nil: undefined, freq: 3 });
const text = fc.string({ minLength: 1, maxLength: 40, unit: 'binary' });
const time = fc.integer({ min: 0, max: 2_000_000_000_000 });
const event = fc
  .record({
    project: field(text),
    action: field(text),
    timestamp: field(time, fc.oneof(epochish, value)),
    payload: field(fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 3 })), payload),
    session_id: field(text),
    event_id: field(text),
    url: field(fc.webUrl()),
    referrer: field(fc.string()),
    origin: field(fc.webUrl()),
    sent_at: field(time, fc.oneof(epochish, value)),
    extra: field(value),
  })
  // Absent, not present as undefined: the parsed JSON body never holds an undefined.
  .map((e) => Object.fromEntries(Object.entries(e).filter(([, v]) => v !== undefined)));

describe('wellFormedIngestEvent', () => {
  it('takes what IngestEvent takes, with the same value, and never what it refuses', () => {
    let taken = 0;
    fc.assert(
      fc.property(fc.oneof(event, value), (item) => {
        const fast = wellFormedIngestEvent(item);
        const zod = IngestEvent.safeParse(item);
        if (fast === null) return;
        taken++;
        expect(zod.success, JSON.stringify(item)).to.equal(true);
        expect(fast).to.deep.equal(zod.data);
        expect(Object.keys(fast)).to.deep.equal(Object.keys(zod.data!));
        expect(JSON.stringify(fast)).to.equal(JSON.stringify(zod.data));
      }),
      { numRuns: 5_000 },
    );
    // The property says nothing if the fast check turns everything down.
    expect(taken).to.be.greaterThan(50);
  });

  it('agrees with IngestEvent at every field’s limits', () => {
    const base = { project: 'acme/web', action: 'click', timestamp: 1732262400000 };
    // One UTF-16 unit per character here, so both count alike: the verdicts must be equal.
    const cases: Array<Record<string, unknown>> = [];
    for (const key of ['project', 'action', 'session_id', 'event_id', 'url', 'referrer', 'origin'])
      for (const n of [0, 1, 127, 128, 129, 199, 200, 201, 511, 512, 513, 4095, 4096, 4097])
        cases.push({ ...base, [key]: 'x'.repeat(n) });
    for (const key of ['timestamp', 'sent_at'])
      for (const t of [-1, -0, 0, 0.5, 8.64e15, 8.64e15 + 1, 2 ** 53, NaN, Infinity, '1732262400000'])
        cases.push({ ...base, [key]: t });
    let taken = 0;
    for (const item of cases) {
      const zod = IngestEvent.safeParse(item);
      const fast = wellFormedIngestEvent(item);
      expect(fast !== null, JSON.stringify(item)).to.equal(zod.success);
      if (fast) expect(fast).to.deep.equal(zod.data);
      if (fast) taken++;
    }
    expect(taken).to.be.within(cases.length / 3, cases.length - 1);
  });

  it('leaves a string zod measures in code points to zod once its UTF-16 units pass the limit', () => {
    // zod counts code points: 65 emoji are 130 units, within session_id's 128 for zod.
    const item = { project: 'acme/web', action: 'click', timestamp: 1732262400000, session_id: '😀'.repeat(65) };
    expect(IngestEvent.safeParse(item).success).to.equal(true);
    expect(wellFormedIngestEvent(item)).to.equal(null);
    expect(wellFormedIngestEvent({ ...item, session_id: '😀'.repeat(64) })).to.deep.equal(
      IngestEvent.parse({ ...item, session_id: '😀'.repeat(64) }),
    );
  });

  it('takes a tracker’s event as it comes, and leaves the rest to zod', () => {
    const ok = {
      project: 'acme/web',
      action: 'click',
      timestamp: 1732262400000,
      session_id: 's-1',
      url: 'https://acme.example/?utm_source=x',
      payload: { x: 1, nested: { y: [1, 2] } },
      unknown_field: 'dropped',
    };
    const fast = wellFormedIngestEvent(ok);
    expect(fast).to.deep.equal({
      project: 'acme/web',
      action: 'click',
      timestamp: 1732262400000,
      payload: { x: 1, nested: { y: [1, 2] } },
      session_id: 's-1',
      url: 'https://acme.example/?utm_source=x',
    });
    expect(wellFormedIngestEvent({ ...ok, payload: undefined })!.payload).to.deep.equal({});
    for (const bad of [
      { ...ok, session_id: '' },
      { ...ok, timestamp: 1.5 },
      { ...ok, sent_at: -1 },
      { ...ok, payload: [] },
      { ...ok, url: null },
      { ...ok, project: 'p'.repeat(201) },
      [ok],
      null,
    ])
      expect(wellFormedIngestEvent(bad), JSON.stringify(bad)).to.equal(null);
  });
});
