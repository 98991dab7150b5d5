// Saved funnels in digests (issue 18): each digest shows the project's saved funnels over its
// window, counted by the store exactly as GET /v1/funnels/{id}/result counts them.
import type { Logger } from '@spoor/service-log';
import type { DigestFunnel } from '@spoor/notify';
import { compileFunnelStep, funnelStepLogic, rawFieldsRead } from '@spoor/rules';
import { isVerifiedProject, RECORD_KINDS, type ProjectRecord, type SavedFunnelData } from '@spoor/schemas';
import { FunnelTooLargeError, type Store, type Window } from '@spoor/store';

/** The newest saved funnels a digest shows: a digest is a summary, not a report. */
export const DIGEST_FUNNELS = 5;

/**
 * The project's newest saved funnels over `window`, without breakdown. One that the store
 * refuses as too large for the window (steps evaluated in TypeScript over too many events) is
 * left out and logged: the digest goes out without it rather than not at all.
 */
export async function digestFunnels(
  store: Store,
  project: ProjectRecord,
  window: Window,
  logger?: Logger,
): Promise<DigestFunnel[]> {
  const saved = await store.records.list<SavedFunnelData>(RECORD_KINDS.funnel, project.project_id, {
    limit: DIGEST_FUNNELS,
  });
  const out: DigestFunnel[] = [];
  for (const { data } of saved) {
    // The DNS gate through logic (issue 42): a funnel that reads raw fields of an unverified
    // domain (saved before that was refused) stays out of its digests until verification.
    if (!isVerifiedProject(project) && data.steps.some((s) => rawFieldsRead(funnelStepLogic(s)).length > 0)) continue;
    const steps = data.steps.map(compileFunnelStep);
    try {
      const counts = await store.funnels.query(project.project_id, {
        window,
        steps,
        unit: data.unit,
        order: data.order,
        conversionWindowMs: data.conversion_window_ms,
        breakdown: null,
      });
      out.push({
        name: data.name,
        steps: steps.map((s, k) => ({ name: s.name, entered: counts.total[k]?.entered ?? 0 })),
      });
    } catch (err) {
      if (!(err instanceof FunnelTooLargeError)) throw err;
      logger?.warn('a saved funnel is left out of the digest: too large for the window', {
        funnel_id: data.funnel_id,
        project_id: project.project_id,
      });
    }
  }
  return out;
}
