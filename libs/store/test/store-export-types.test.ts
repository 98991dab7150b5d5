// Issue 43: a Parquet export declares the same column types on every engine, so one reader's
// schema fits both (the sessions' `updated_at` was int64 on DuckDB and uint64 on ClickHouse).
// Each backend's files are read by hyparquet (not the engine that wrote them); the last suite
// compares the engines type for type.
import { expect } from 'chai';
import type { ExportWhat } from '@spoor/schemas';
import { parquetColumnTypes } from '@spoor/testkit';
import { backends, type Opened } from './store-backends.js';
import { T0, enriched, raw, session } from './store-fixtures.js';

const WHATS: ExportWhat[] = ['events', 'enriched_events', 'sessions'];
/** Per backend, per export, each column's declared type. */
const declared = new Map<string, Record<string, Record<string, string>>>();

for (const backend of backends) {
  describe(`Store export column types: ${backend.name}`, function () {
    this.timeout(60_000);
    let opened: Opened | undefined;

    before(async function () {
      opened = await backend.open(this);
      await opened.store.migrate();
    });

    after(async () => {
      await opened?.cleanup();
      opened = undefined;
    });

    it('writes integer times and counts as signed 64-bit integers in Parquet', async () => {
      const s = opened!.store;
      const P = 'p-types';
      await s.events.insertEvents([
        {
          raw: raw({ event_id: 'e1', project_id: P, timestamp: T0 }),
          enriched: enriched({ event_id: 'e1', project_id: P, timestamp: T0, session_id: 's1' }),
        },
      ]);
      await s.sessions.upsert([session({ session_id: 's1', project_id: P, last_event_at: T0 })]);
      const types: Record<string, Record<string, string>> = {};
      for (const what of WHATS) {
        const id = `types-${what.replace('_', '-')}`;
        await s.exports.write({
          export_id: id,
          project_id: P,
          what,
          format: 'parquet',
          window_start: null,
          window_end: null,
          written_at: Date.now(),
        });
        const file = await s.exports.open(id);
        const chunks: Buffer[] = [];
        for await (const c of file!.stream) chunks.push(c as Buffer);
        types[what] = parquetColumnTypes(Buffer.concat(chunks));
      }
      for (const column of ['updated_at', 'last_event_at', 'first_event_at', 'event_count'])
        expect(types.sessions![column], column).to.equal('int64');
      declared.set(backend.name, types);
    });
  });
}

describe('Store export column types: across engines', () => {
  it('declares every column of every export with the same Parquet type on each engine', function () {
    if (declared.size < 2) this.skip();
    const [first, ...rest] = [...declared.entries()];
    for (const [name, types] of rest)
      for (const what of WHATS)
        expect(types[what], `${what}: ${name} against ${first![0]}`).to.deep.equal(first![1][what]);
  });
});
