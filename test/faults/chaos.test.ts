import { expect } from 'chai';
import { runChaos, type ChaosMode } from '../support/chaos-run.js';

// Issue 16, item 5 (docs/reliability.md): `npm run chaos` with a small count, in both modes. The
// closing figures of long runs (`--kills 100`) are in docs/reliability.md.

const KILLS = 5;

for (const mode of ['embedded', 'split'] as ChaosMode[]) {
  describe(`Faults: chaos, ${KILLS} SIGKILLs of random processes under load (${mode})`, function () {
    this.timeout(180_000);

    it('loses nothing acknowledged and counts nothing twice', async function () {
      const r = await runChaos({ mode, kills: KILLS, everyMs: 2_000, log: () => undefined });
      if (!r) return this.skip();
      console.log(
        `      killed ${JSON.stringify(r.killed)}; acknowledged ${r.acked}, stored ${r.stored}, lost ${r.lost}, duplicates ${r.duplicates}, enriched ${r.enriched}, counted in sessions ${r.sessionEvents}; ${(r.ms / 1000).toFixed(0)} s`,
      );
      expect(r.acked).to.be.greaterThan(0);
      expect(r.lostIds, 'acknowledged events lost').to.deep.equal([]);
      expect(r.duplicates).to.equal(0);
      expect(r.stored).to.equal(r.acked);
      expect(r.enriched).to.equal(r.acked);
      expect(r.enrichedDuplicates).to.equal(0);
      expect(r.sessionEvents, 'each event counted in one session, once').to.equal(r.acked);
    });
  });
}
