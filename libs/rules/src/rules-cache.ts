import { isVerifiedProject, kvKeys, type RuleRecord } from '@spoor/schemas';
import { rawFieldsRead } from './raw-fields.js';
import { compileRules, type RuleSet } from './rule-set.js';

/** Where rules come from (the store's RuleRepository fits). */
export interface RuleSource {
  list(projectId: string): Promise<RuleRecord[]>;
}

/** Where the per-project change stamps live (the Kv fits). */
export interface StampStore {
  mget(keys: string[]): Promise<Array<string | null>>;
  incr(key: string, by?: number, ttlMs?: number): Promise<number>;
}

export const rulesStampKey = kvKeys.rulesStamp;

/**
 * Whether a project's raw event fields may be read (its domain verified, or loopback). A project that may not has its
 * attribute rules that read raw fields left out (issue 42, the DNS gate through logic).
 */
export type RawFieldsReadable = (projectId: string) => Promise<boolean>;

/** RawFieldsReadable from where projects are kept (the store's ProjectRepository fits). */
export function rawFieldsReadableFrom(projects: {
  get(projectId: string): Promise<{ verified: boolean; origin: string } | null>;
}): RawFieldsReadable {
  return async (projectId) => {
    const p = await projects.get(projectId);
    return p !== null && isVerifiedProject(p);
  };
}

/** An attribute rule reading raw fields, in its condition or its value. */
const readsRawFields = (r: RuleRecord) =>
  r.kind === 'attribute' && (rawFieldsRead(r.logic).length > 0 || rawFieldsRead(r.value).length > 0);

export interface CompiledRules {
  set: RuleSet;
  classification: number;
  attribute: number;
}

interface Entry {
  stamp: string | null;
  loadedAt: number;
  rules: CompiledRules;
}

/**
 * The enabled rules of each project, compiled once. Every rule change bumps the project's stamp
 * in the KV (`RulesCache.changed`); a lookup compares stamps for all the projects of a batch in
 * one round trip and reloads what changed, so a saved or disabled rule takes effect with the
 * next batch in every process. `maxAgeMs` bounds staleness when the KV lost a stamp (Redis
 * restart, or another process' memory KV in a split embedded setup).
 */
export class RulesCache {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly rules: RuleSource,
    private readonly stamps: StampStore,
    private readonly opts: { clock: () => number; maxAgeMs?: number; rawFieldsReadable?: RawFieldsReadable },
  ) {}

  static async changed(stamps: StampStore, projectId: string): Promise<void> {
    await stamps.incr(rulesStampKey(projectId));
  }

  async forProjects(projectIds: string[]): Promise<Map<string, CompiledRules>> {
    const ids = [...new Set(projectIds)];
    const stamps = ids.length ? await this.stamps.mget(ids.map(rulesStampKey)) : [];
    const now = this.opts.clock();
    const maxAge = this.opts.maxAgeMs ?? 30_000;
    const out = new Map<string, CompiledRules>();
    await Promise.all(
      ids.map(async (id, i) => {
        const stamp = stamps[i] ?? null;
        let entry = this.entries.get(id);
        if (!entry || entry.stamp !== stamp || now - entry.loadedAt > maxAge) {
          let records = (await this.rules.list(id)).filter((r) => r.enabled);
          const readable = this.opts.rawFieldsReadable;
          if (readable && records.some(readsRawFields) && !(await readable(id)))
            records = records.filter((r) => !readsRawFields(r));
          entry = {
            stamp,
            loadedAt: now,
            rules: {
              set: compileRules(records),
              classification: records.filter((r) => r.kind === 'classification').length,
              attribute: records.filter((r) => r.kind === 'attribute').length,
            },
          };
          this.entries.set(id, entry);
        }
        out.set(id, entry.rules);
      }),
    );
    return out;
  }
}
