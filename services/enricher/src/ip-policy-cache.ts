import type { IpPolicy } from '@spoor/schemas';
import type { ProjectRepository } from '@spoor/store';

/** How long a project's IP policy is trusted before it is read again: a change applies within it (docs/data.md). */
export const IP_POLICY_TTL_MS = 10_000;

interface Cached {
  policy: IpPolicy;
  expiresAt: number;
}

/**
 * Each project's IP policy (issue 17) for the enricher's hot path: read once per project per
 * batch when stale, so an event costs a map lookup, never a store query. A project without a
 * policy of its own, or one no longer stored (deleted while its events were on the bus), takes
 * SPOOR_IP_MODE.
 */
export class IpPolicyCache {
  private readonly cache = new Map<string, Cached>();

  constructor(
    private readonly projects: Pick<ProjectRepository, 'get'>,
    private readonly fallback: IpPolicy,
    private readonly clock: () => number,
    private readonly ttlMs = IP_POLICY_TTL_MS,
  ) {}

  /**
   * Makes policyOf() current for these projects. A failed read keeps a stale policy and
   * otherwise throws, so the batch is retried rather than stored under a policy it may not have.
   */
  async load(projectIds: Iterable<string>): Promise<void> {
    const now = this.clock();
    for (const id of new Set(projectIds)) {
      const hit = this.cache.get(id);
      if (hit && hit.expiresAt > now) continue;
      try {
        const project = await this.projects.get(id);
        if (this.cache.size > 50_000) this.cache.clear();
        this.cache.set(id, { policy: project?.ip_policy ?? this.fallback, expiresAt: now + this.ttlMs });
      } catch (err) {
        if (!hit) throw err;
      }
    }
  }

  /** The policy of a project load() was given; SPOOR_IP_MODE for any other. */
  policyOf(projectId: string): IpPolicy {
    return this.cache.get(projectId)?.policy ?? this.fallback;
  }
}
