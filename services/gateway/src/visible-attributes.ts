// Attributes an unverified project's owner may read (issue 42, the DNS gate through logic).
// Attribute rules that read raw fields cannot be saved, and do not run, while the domain is
// unverified; values such rules stored before that (an upgrade, or a rule saved before this
// check existed) are withheld on read too: only attributes that rules reading no raw fields set
// are shown until the domain is verified.
import { rawFieldsRead } from '@spoor/rules';
import type { ProjectRecord } from '@spoor/schemas';
import type { Store } from '@spoor/store';
import { isVerified } from './project-scope.js';

export type AttributeFilter = (attributes: Record<string, unknown>) => Record<string, unknown>;

const everything: AttributeFilter = (a) => a;

/** The filter for `p`'s attributes: all of them once verified, else those no raw-reading rule set. */
export async function visibleAttributes(store: Store, p: ProjectRecord): Promise<AttributeFilter> {
  if (isVerified(p)) return everything;
  const shown = new Set<string>();
  const withheld = new Set<string>();
  for (const r of await store.rules.list(p.project_id)) {
    if (r.kind !== 'attribute' || !r.attribute) continue;
    const raw = rawFieldsRead(r.logic).length > 0 || rawFieldsRead(r.value).length > 0;
    // Any rule, enabled or not, that read raw fields may have stored this name's values.
    if (raw) withheld.add(r.attribute);
    else if (r.enabled) shown.add(r.attribute);
  }
  return (attributes) =>
    Object.fromEntries(Object.entries(attributes).filter(([name]) => shown.has(name) && !withheld.has(name)));
}
