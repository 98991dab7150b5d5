/** A JSONLogic expression: a literal, an array, or a one-key object `{"<operator>": args}`. */
export type JsonLogic = unknown;

export type RuleKind = 'classification' | 'attribute';

/**
 * One stored version of a rule (DESIGN.md, Rules). Classification rules run on the session
 * summary; an attribute rule runs on each enriched event and, when `logic` holds, sets
 * `attributes[attribute]` to the value of its `value` expression.
 */
export interface RuleRecord {
  project_id: string;
  rule_id: string;
  /** 1, 2, 3… per rule_id; every save (and every disable) writes the next one. */
  version: number;
  kind: RuleKind;
  logic: JsonLogic;
  tags: string[];
  label: string | null;
  /** Attribute rules: the attribute's name. Null for classification rules. */
  attribute: string | null;
  /** Attribute rules: a JSONLogic expression evaluated on the event. Null for classification rules. */
  value: JsonLogic | null;
  description: string | null;
  enabled: boolean;
  /** When version 1 was written. */
  created_at: number;
  /** When this version was written. */
  updated_at: number;
  /** The account that wrote this version. */
  updated_by: string;
}

/** A tag a rule applied to a session (the rule is the tag's source). */
export interface RuleTag {
  rule_id: string;
  tag: string;
}

/** The classifier's latest verdict on a session. */
export interface SessionClassification {
  project_id: string;
  session_id: string;
  /** Enabled classification rules that matched, by rule_id. */
  rule_ids: string[];
  /** Labels of those rules, deduplicated, in rule_id order. */
  labels: string[];
  /** Tags those rules applied, so that a later verdict can take back the ones no longer due. */
  tags: RuleTag[];
  /** When this verdict was reached: the newest wins. */
  classified_at: number;
  /** The session's last_event_at when classified. */
  session_last_event_at: number;
}
