// Row shapes of the rules and session_classifications tables, shared by both backends (see
// event-row.ts). JSONLogic (logic, value) and the classification's rule tags are JSON text in
// both backends: open-shaped values nothing queries inside. String lists (a rule's tags, a
// classification's rule_ids and labels) stay lists here and each backend decides how to store
// them (ClickHouse Array(String), DuckDB VARCHAR JSON).
import type { RuleKind, RuleRecord, RuleTag, SessionClassification } from '@spoor/schemas';
import { toBool, toInt, toStr, toStrOrNull, toStringList, toStructured } from './column-values.js';

export const RULE_COLUMNS = [
  'project_id',
  'rule_id',
  'version',
  'kind',
  'logic',
  'tags',
  'label',
  'attribute',
  'value',
  'description',
  'enabled',
  'created_at',
  'updated_at',
  'updated_by',
] as const;

export const CLASSIFICATION_COLUMNS = [
  'project_id',
  'session_id',
  'rule_ids',
  'labels',
  'tags',
  'classified_at',
  'session_last_event_at',
] as const;

export type RuleRow = Record<(typeof RULE_COLUMNS)[number], unknown>;
export type ClassificationRow = Record<(typeof CLASSIFICATION_COLUMNS)[number], unknown>;

/** JSON text of a JSONLogic value; an absent value is stored as JSON null. */
const jsonText = (v: unknown): string => JSON.stringify(v ?? null);

export function ruleToRow(r: RuleRecord): RuleRow {
  return {
    project_id: r.project_id,
    rule_id: r.rule_id,
    version: r.version,
    kind: r.kind,
    logic: jsonText(r.logic),
    tags: r.tags,
    label: r.label,
    attribute: r.attribute,
    // NULL for "no value expression" (classification rules), JSON text otherwise.
    value: r.value === null ? null : jsonText(r.value),
    description: r.description,
    enabled: r.enabled,
    created_at: r.created_at,
    updated_at: r.updated_at,
    updated_by: r.updated_by,
  };
}

export function rowToRule(r: Record<string, unknown>): RuleRecord {
  return {
    project_id: toStr(r.project_id),
    rule_id: toStr(r.rule_id),
    version: toInt(r.version),
    kind: toStr(r.kind) as RuleKind,
    logic: JSON.parse(toStr(r.logic)) as unknown,
    tags: toStringList(r.tags),
    label: toStrOrNull(r.label),
    attribute: toStrOrNull(r.attribute),
    value: r.value === null || r.value === undefined ? null : (JSON.parse(toStr(r.value)) as unknown),
    description: toStrOrNull(r.description),
    enabled: toBool(r.enabled),
    created_at: toInt(r.created_at),
    updated_at: toInt(r.updated_at),
    updated_by: toStr(r.updated_by),
  };
}

export function classificationToRow(c: SessionClassification): ClassificationRow {
  return {
    project_id: c.project_id,
    session_id: c.session_id,
    rule_ids: c.rule_ids,
    labels: c.labels,
    tags: JSON.stringify(c.tags.map((t) => ({ rule_id: t.rule_id, tag: t.tag }))),
    classified_at: c.classified_at,
    session_last_event_at: c.session_last_event_at,
  };
}

export function rowToClassification(r: Record<string, unknown>): SessionClassification {
  return {
    project_id: toStr(r.project_id),
    session_id: toStr(r.session_id),
    rule_ids: toStringList(r.rule_ids),
    labels: toStringList(r.labels),
    tags: toStructured<RuleTag[]>(r.tags) ?? [],
    classified_at: toInt(r.classified_at),
    session_last_event_at: toInt(r.session_last_event_at),
  };
}

/**
 * One verdict per (project_id, session_id): the greatest classified_at wins, a tie goes to the
 * later one in the batch (see latestPerSession).
 */
export function latestPerClassification(items: SessionClassification[]): SessionClassification[] {
  const byKey = new Map<string, SessionClassification>();
  for (const c of items) {
    const key = `${c.project_id}\u0000${c.session_id}`;
    const prev = byKey.get(key);
    if (!prev || c.classified_at >= prev.classified_at) byKey.set(key, c);
  }
  return [...byKey.values()];
}
