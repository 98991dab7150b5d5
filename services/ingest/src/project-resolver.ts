import type { ProjectRecord } from '@spoor/schemas';
import type { ProjectRepository } from '@spoor/store';

interface Cached {
  value: ProjectRecord | null | ProjectRecord[];
  expiresAt: number;
}

/**
 * Project lookups for the ingest hot path, cached briefly: a registration made by the gateway
 * (another process in split mode) becomes visible within `missTtlMs`. A project found before is
 * still served from the cache while the store cannot answer.
 */
export class ProjectResolver {
  private readonly cache = new Map<string, Cached>();

  constructor(
    private readonly projects: ProjectRepository,
    private readonly clock: () => number,
    private readonly hitTtlMs = 10_000,
    private readonly missTtlMs = 1_000,
  ) {}

  find(origin: string, project: string): Promise<ProjectRecord | null> {
    return this.cached(`o\u0000${origin}\u0000${project}`, () =>
      this.projects.find(origin, project),
    ) as Promise<ProjectRecord | null>;
  }

  findByName(project: string): Promise<ProjectRecord[]> {
    return this.cached(`n\u0000${project}`, () => this.projects.findByName(project)) as Promise<ProjectRecord[]>;
  }

  private async cached(key: string, load: () => Promise<Cached['value']>): Promise<Cached['value']> {
    const now = this.clock();
    const hit = this.cache.get(key);
    if (hit && hit.expiresAt > now) return hit.value;
    let value: Cached['value'];
    try {
      value = await load();
    } catch (err) {
      // Stale if error (issue 16): while the store is away, a project known a moment ago is still
      // known, so ingest keeps accepting (Kafka holds the events) instead of failing every request.
      if (hit && (Array.isArray(hit.value) ? hit.value.length > 0 : hit.value !== null)) return hit.value;
      throw err;
    }
    const found = Array.isArray(value) ? value.length > 0 : value !== null;
    if (this.cache.size > 50_000) this.cache.clear();
    this.cache.set(key, { value, expiresAt: now + (found ? this.hitTtlMs : this.missTtlMs) });
    return value;
  }
}
