// The install's first account is its operator while SPOOR_ADMIN_EMAILS names none (issue 45;
// docs/security.md, Operators): a fresh install's owner sees health at once, without a restart.
//
// "First" is the oldest account when the question is first asked (on an upgraded install too),
// written down as a record so that it stays that account: if it is deleted, nobody takes its
// place (the next oldest account may be anybody's on a shared install) — set SPOOR_ADMIN_EMAILS.
import { RECORD_KINDS } from '@spoor/schemas';
import type { Store } from '@spoor/store';

const CLAIM = { kind: RECORD_KINDS.installOperator, project_id: '', id: 'first-account' } as const;

/** The first account's id, claimed in the store on the first call that finds an account. */
export function installOperator(store: Store): () => Promise<string | null> {
  const read = async () =>
    (await store.records.get<{ account_id: string }>(CLAIM.kind, CLAIM.project_id, CLAIM.id))?.data.account_id ?? null;
  return async () => {
    const claimed = await read();
    if (claimed !== null) return claimed;
    const oldest = await store.accounts.oldest();
    if (!oldest) return null;
    // Two processes may claim at once, one seeing an account the other does not yet: the greatest
    // updated_at wins, so it falls as created_at grows and the older account's claim stands.
    await store.records.put([
      {
        ...CLAIM,
        parent_id: '',
        sort_key: oldest.created_at,
        data: { account_id: oldest.account_id },
        updated_at: Number.MAX_SAFE_INTEGER - oldest.created_at,
        deleted: false,
      },
    ]);
    return (await read()) ?? oldest.account_id;
  };
}
