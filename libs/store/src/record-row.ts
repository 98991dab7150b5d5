import type { StoredRecord } from './store.js';
import { toBool, toInt, toStr, toStructured } from './column-values.js';

export const RECORD_COLUMNS = [
  'kind',
  'project_id',
  'id',
  'parent_id',
  'sort_key',
  'data',
  'updated_at',
  'deleted',
] as const;

export function recordToRow(r: StoredRecord<unknown>): Record<string, string | number | boolean> {
  return {
    kind: r.kind,
    project_id: r.project_id,
    id: r.id,
    parent_id: r.parent_id,
    sort_key: r.sort_key,
    data: JSON.stringify(r.data ?? null),
    updated_at: r.updated_at,
    deleted: r.deleted,
  };
}

export function rowToRecord<T>(row: Record<string, unknown>): StoredRecord<T> {
  return {
    kind: toStr(row.kind),
    project_id: toStr(row.project_id),
    id: toStr(row.id),
    parent_id: toStr(row.parent_id),
    sort_key: toInt(row.sort_key),
    data: toStructured<T>(row.data),
    updated_at: toInt(row.updated_at),
    deleted: toBool(row.deleted),
  };
}

/** One record per key, the greatest updated_at (later in the list on a tie), so a batch settles its own ties. */
export function latestPerRecord<T>(records: Array<StoredRecord<T>>): Array<StoredRecord<T>> {
  const byKey = new Map<string, StoredRecord<T>>();
  for (const r of records) {
    const key = JSON.stringify([r.kind, r.project_id, r.id]);
    const prev = byKey.get(key);
    if (!prev || r.updated_at >= prev.updated_at) byKey.set(key, r);
  }
  return [...byKey.values()];
}
