import type { Kv } from '@spoor/kv';
import type { RuleRecord } from '@spoor/schemas';
import { StoreConflictError, type RuleRepository } from '@spoor/store';
import { RulesCache } from '@spoor/rules';

/** What a save sets; the version, times and author are the save's own. */
export type RuleContent = Omit<RuleRecord, 'version' | 'created_at' | 'updated_at' | 'updated_by' | 'project_id'>;

/** Two saves of one rule kept colliding: the caller should try again (the API answers 409). */
export class RuleVersionConflict extends Error {
  constructor(readonly ruleId: string) {
    super(`rule ${ruleId} was changed concurrently`);
    this.name = 'RuleVersionConflict';
  }
}

export interface RuleVersionDeps {
  rules: RuleRepository;
  kv: Kv;
  clock: () => number;
}

/**
 * Saves the next version of a rule (issue 20: rule versioning belongs to the rules module, not
 * to a route). `next` builds the content from the latest version (null for a new rule). Of two
 * concurrent saves the store keeps one version number; the loser reads the winner and saves on
 * top of it, up to three times. Every rules cache learns of the change through the KV stamp.
 */
export async function saveRuleVersion(
  deps: RuleVersionDeps,
  projectId: string,
  ruleId: string,
  author: string,
  next: (prev: RuleRecord | null) => RuleContent,
): Promise<RuleRecord> {
  for (let attempt = 0; ; attempt++) {
    const prev = await deps.rules.get(projectId, ruleId);
    const now = deps.clock();
    const rule: RuleRecord = {
      ...next(prev),
      project_id: projectId,
      version: (prev?.version ?? 0) + 1,
      created_at: prev?.created_at ?? now,
      updated_at: Math.max(now, (prev?.updated_at ?? 0) + 1),
      updated_by: author,
    };
    try {
      await deps.rules.put(rule);
    } catch (err) {
      if (!(err instanceof StoreConflictError)) throw err;
      if (attempt < 3) continue;
      throw new RuleVersionConflict(ruleId);
    }
    await RulesCache.changed(deps.kv, projectId);
    return rule;
  }
}
