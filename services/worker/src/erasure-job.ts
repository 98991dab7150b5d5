// POST /v1/erasures (issue 17, docs/data.md "Erasing a visitor"): one person's events and
// sessions go from the store, their open session states from the KV, and the stored overviews
// and transition matrices that counted them are rebuilt from what is left (stored-results.ts).
import { applyIpMode, ipSalt, normaliseIp, type IpMode } from '@spoor/enrich';
import { JobFailure, type JobContext, type JobHandler } from '@spoor/jobs';
import type { Kv } from '@spoor/kv';
import { kvKeys, type ErasureResult } from '@spoor/schemas';
import type { Store, VisitorSelector } from '@spoor/store';
import { rawCopiesGoneBy, type RawCopies } from './raw-copies.js';
import { projectOf } from './result-jobs.js';
import { recountStoredResults } from './stored-results.js';

export interface ErasureJobDeps extends RawCopies {
  store: Store;
  kv: Kv;
  /** SPOOR_IP_MODE and where the hash mode's salt comes from: an IP is matched as it was stored. */
  ip: { mode: IpMode; ipSalt: string | null; dataDir: string };
}

export function erasureJob(deps: ErasureJobDeps): JobHandler {
  return async (job, ctx) => {
    const project = await projectOf(deps.store, job.project_id);
    const selector = await selectorOf(job.request, deps.ip, project.ip_policy ?? null);
    await keepAllowedIp(job.request, project.ip_policy ?? deps.ip.mode, deps.ip, ctx);
    await ctx.progress(0, 3);
    const erased = await deps.store.erasure.eraseVisitor(project.project_id, selector);
    await ctx.progress(1, 3);
    // The sessionizer reloads an open session from the KV first: its state would bring the erased summary back.
    // The named session too: a job taken over after the store's part finds it no more.
    const named = 'session_id' in selector ? [selector.session_id] : [];
    for (const id of new Set([...erased.session_ids, ...named]))
      await deps.kv.del(kvKeys.openSession(project.project_id, id));
    await ctx.progress(2, 3);
    const recounted = erased.window
      ? await recountStoredResults(deps.store, project, erased.window, deps.clock, () => ctx.heartbeat())
      : { overviews: 0, transitions: 0 };
    await ctx.progress(3, 3);
    const result: ErasureResult = {
      sessions: erased.session_ids.length,
      events: erased.events,
      overviews_rebuilt: recounted.overviews,
      transitions_rebuilt: recounted.transitions,
      raw_copies_gone_by: rawCopiesGoneBy(deps),
    };
    return result;
  };
}

/**
 * The store's selector from the job's request. An IP is looked for in every form it may have
 * been stored in: as received, as the project's IP policy stores it now, and as SPOOR_IP_MODE
 * does (the policy of projects without their own, so of the project before it chose one).
 */
async function selectorOf(
  request: Record<string, unknown>,
  ip: ErasureJobDeps['ip'],
  projectPolicy: IpMode | null,
): Promise<VisitorSelector> {
  if (typeof request.session_id === 'string') return { session_id: request.session_id };
  if (typeof request.visitor_id === 'string') return { visitor_id: request.visitor_id };
  // Already kept as the policy stores it (keepAllowedIp; a job taken over): that form alone.
  if (typeof request.ip_stored_as === 'string' && typeof request.ip === 'string') return { ips: [request.ip] };
  const address = typeof request.ip === 'string' ? normaliseIp(request.ip) : null;
  if (address === null) throw new JobFailure('The erasure names no session, visitor or IP address');
  const modes = [...new Set([ip.mode, projectPolicy ?? ip.mode])];
  const salt = modes.includes('hash') ? await ipSalt(ip) : '';
  return { ips: [...new Set(modes.flatMap((mode) => storedIpForms(address, mode, salt)))] };
}

/**
 * The job's record keeps only what the project's IP policy lets events keep (issue 43): under
 * `truncate` or `hash` the request's address is replaced by its stored form, as the enricher
 * stores it, before anything is erased, with `ip_stored_as` naming the policy.
 */
async function keepAllowedIp(
  request: Record<string, unknown>,
  policy: IpMode,
  ip: ErasureJobDeps['ip'],
  ctx: JobContext,
): Promise<void> {
  if (policy === 'full' || typeof request.ip !== 'string' || request.ip_stored_as !== undefined) return;
  const salt = policy === 'hash' ? await ipSalt(ip) : '';
  await ctx.redactRequest?.({ ...request, ip: applyIpMode(request.ip, policy, salt), ip_stored_as: policy });
}

/** The address as received and as `mode` stores it: the forms an erasure by IP looks for. */
export function storedIpForms(address: string, mode: IpMode, salt: string): string[] {
  return [...new Set([address, applyIpMode(address, mode, salt)])];
}
