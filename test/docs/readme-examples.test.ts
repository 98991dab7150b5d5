import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { IngestEvent } from '@spoor/schemas';

// The README's examples are what a newcomer copies first (issue 20: its sample event was dated
// 2024). Each epoch time in them reads as this release's time, and the sample event is one
// ingest accepts: valid, and not more than 24 hours ahead (docs/ingestion.md).
describe('README examples', () => {
  const readme = readFileSync('README.md', 'utf8');

  it('dates every epoch-millisecond time in late 2026 or later, never ahead of now by more than a day', () => {
    const times = [...readme.matchAll(/\b1\d{12}\b/g)].map((m) => Number(m[0]));
    expect(times).to.not.be.empty;
    for (const t of times) {
      expect(t >= Date.UTC(2026, 10, 1), new Date(t).toISOString()).to.equal(true);
      expect(t, String(t)).to.be.at.most(Date.now() + 86_400_000);
    }
  });

  it('sends a sample event that validates as an ingest event', () => {
    const body = /-d '(\{"project"[^']*\})'/.exec(readme)?.[1];
    expect(body, 'the curl of POST /v1/event').to.be.a('string');
    const parsed = IngestEvent.safeParse(JSON.parse(body!));
    expect(parsed.success, JSON.stringify(parsed.error?.issues)).to.equal(true);
  });
});
