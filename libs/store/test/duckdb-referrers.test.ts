// The embedded overview ranks referrers by host, taken in JS once per distinct referrer; it must
// name each referrer exactly as the SQL expression it replaced did (issue 15).
import { DuckDBInstance } from '@duckdb/node-api';
import { expect } from 'chai';
import { referrerHost } from '../src/duckdb/analytics-repository.js';

const BEFORE = `coalesce(nullif(regexp_extract(r, '^[A-Za-z][A-Za-z0-9+.-]*://([^/?#:]+)', 1), ''), r)`;

describe('DuckDB referrer hosts', function () {
  it('names every referrer as the SQL expression did: URLs by host, the rest as sent', async function () {
    const referrers = [
      'https://news.example.org/post?id=1',
      'http://host.example:8080/x',
      'https://www.google.com',
      'HTTPS://UPPER.example/Path',
      'android-app://com.google.android.gm/',
      'https://user@host.example/x',
      'https://münchen.example/straße',
      'https://example.org?q=1',
      'https://example.org#top',
      'https:///no-host',
      '//protocol-relative.example/x',
      '1http://digit-first.example/',
      'mailto:someone@example.org',
      'not a url',
      'https://',
      '💡://emoji.example/',
      "'; DROP TABLE x; --",
    ];
    const db = await DuckDBInstance.create(':memory:');
    const c = await db.connect();
    try {
      const values = referrers.map((_, i) => `($${i + 1})`).join(', ');
      const rows = (
        await c.runAndReadAll(`SELECT r, ${BEFORE} AS host FROM (VALUES ${values}) v(r)`, referrers)
      ).getRowObjectsJS();
      expect(rows).to.have.length(referrers.length);
      for (const row of rows) expect(referrerHost(String(row.r)), String(row.r)).to.equal(row.host);
    } finally {
      c.closeSync();
      db.closeSync();
    }
  });
});
