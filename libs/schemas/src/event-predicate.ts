// A condition over one enriched event that both engines can evaluate in SQL, compiled from the
// JSONLogic of a funnel step (issue 18). Pure code, like rule-logic.ts: it never runs the logic.
//
// Only what SQL answers exactly as json-logic-js would is compiled; anything else (ordering
// comparisons, `==` against a payload value, arithmetic, `var` with a default…) is left to
// TypeScript, which evaluates the same logic with json-logic-js (libs/rules). docs/analytics.md
// lists the compiled forms.

/** Event fields that are plain text columns (or NULL) in both engines, by their JSONLogic path. */
export const EVENT_TEXT_COLUMNS: Readonly<Record<string, string>> = {
  action: 'action',
  path: 'path',
  url: 'url',
  referrer: 'referrer',
  session_id: 'session_id',
  'browser.name': 'browser_name',
  'browser.version': 'browser_version',
  'os.name': 'os_name',
  'os.version': 'os_version',
  'device.type': 'device_type',
  'device.vendor': 'device_vendor',
  'device.model': 'device_model',
  'geo.country': 'geo_country',
  'geo.region': 'geo_region',
  'geo.city': 'geo_city',
  'utm.source': 'utm_source',
  'utm.medium': 'utm_medium',
  'utm.campaign': 'utm_campaign',
  'utm.term': 'utm_term',
  'utm.content': 'utm_content',
};

export type JsonScalar = string | number | boolean | null;

/** The compiled form. Every node is two-valued (never SQL NULL): engines render it with coalesce. */
export type EventPredicate =
  | { op: 'const'; value: boolean }
  | { op: 'and' | 'or'; args: EventPredicate[] }
  | { op: 'not'; arg: EventPredicate }
  /** column = one of values (NULL never equals); `orNull` also holds for NULL. */
  | { op: 'column_in'; column: string; values: string[]; orNull: boolean }
  /** The column is a non-empty string holding value (json-logic-js: `in` on '' is false). */
  | { op: 'column_contains'; column: string; value: string }
  /** query[name] is present and equals one of values; `orNull`: or is absent. */
  | { op: 'query_in'; name: string; values: string[]; orNull: boolean }
  /** query[name] is present, non-empty and holds value. */
  | { op: 'query_contains'; name: string; value: string }
  /** The payload value at `path` is this JSON scalar, type included (null: JSON null or missing). */
  | { op: 'payload_is'; path: string[]; value: JsonScalar };

type Logic = unknown;

const isOp = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && Object.keys(v).length === 1;
const argsOf = (node: Record<string, unknown>, op: string): unknown[] => {
  const raw = node[op];
  return Array.isArray(raw) ? raw : raw === undefined ? [] : [raw];
};
const isScalar = (v: unknown): v is JsonScalar => v === null || ['string', 'number', 'boolean'].includes(typeof v);

/**
 * Path segments SQL cannot follow the way JavaScript does: an array index (`a.0`: ClickHouse
 * numbers array elements from 1) and a property every string, array, number or boolean has
 * (`text.length` is a number in json-logic-js, missing in SQL).
 */
function sqlFollows(segment: string): boolean {
  if (segment === '' || /^\d+$/.test(segment)) return false;
  return ![String.prototype, Array.prototype, Number.prototype, Boolean.prototype, Object.prototype].some(
    (p) => segment in p,
  );
}

type Field = { kind: 'column'; column: string } | { kind: 'query'; name: string } | { kind: 'payload'; path: string[] };

/** What a literal `{"var": "…"}` reads, when SQL can read it the same way. */
function fieldOf(node: unknown): Field | null {
  if (!isOp(node) || !('var' in node)) return null;
  const args = argsOf(node, 'var');
  if (args.length !== 1 || typeof args[0] !== 'string') return null; // a default changes what a miss means
  const path = args[0];
  const column = EVENT_TEXT_COLUMNS[path];
  if (column) return { kind: 'column', column };
  const [head, ...rest] = path.split('.');
  if (head === 'query' && rest.length === 1 && sqlFollows(rest[0]!)) return { kind: 'query', name: rest[0]! };
  if (head === 'payload' && rest.length > 0 && rest.every(sqlFollows)) return { kind: 'payload', path: rest };
  return null;
}

/** field == / === literal, as json-logic-js answers it; null when SQL cannot say the same. */
function equality(field: Field, literal: JsonScalar, strict: boolean): EventPredicate | null {
  if (field.kind === 'payload') {
    // Loose equality against a payload value coerces (3 == "3", ["a"] == "a"): only null is safe.
    if (!strict && literal !== null) return null;
    return { op: 'payload_is', path: field.path, value: literal };
  }
  // A text column or a query value is a string or null (a missing query key reads as null).
  if (typeof literal === 'string')
    return field.kind === 'column'
      ? { op: 'column_in', column: field.column, values: [literal], orNull: false }
      : { op: 'query_in', name: field.name, values: [literal], orNull: false };
  if (literal === null)
    return field.kind === 'column'
      ? { op: 'column_in', column: field.column, values: [], orNull: true }
      : { op: 'query_in', name: field.name, values: [], orNull: true };
  // A string against a number or boolean: === never holds, == converts the string (Number("")).
  return strict ? { op: 'const', value: false } : null;
}

function comparison(op: string, args: unknown[]): EventPredicate | null {
  if (args.length !== 2) return null;
  const [a, b] = args;
  const field = fieldOf(a) ?? fieldOf(b);
  const literal = fieldOf(a) ? b : a;
  if (!field || !isScalar(literal)) return null;
  const eq = equality(field, literal, op === '===' || op === '!==');
  if (!eq) return null;
  return op.startsWith('!') ? { op: 'not', arg: eq } : eq;
}

/** `in`: substring of a text field, or a text field among literal strings. */
function membership(args: unknown[]): EventPredicate | null {
  if (args.length !== 2) return null;
  const [needle, haystack] = args;
  const hayField = fieldOf(haystack);
  if (typeof needle === 'string' && hayField && hayField.kind !== 'payload') {
    // json-logic-js: a null haystack has no indexOf, so `in` is false.
    return hayField.kind === 'column'
      ? { op: 'column_contains', column: hayField.column, value: needle }
      : { op: 'query_contains', name: hayField.name, value: needle };
  }
  const field = fieldOf(needle);
  if (field && field.kind !== 'payload' && Array.isArray(haystack) && haystack.every(isScalar)) {
    // Array.indexOf is ===: a string field matches string items, a null field a null item.
    const values = haystack.filter((v): v is string => typeof v === 'string');
    const orNull = haystack.includes(null);
    return field.kind === 'column'
      ? { op: 'column_in', column: field.column, values, orNull }
      : { op: 'query_in', name: field.name, values, orNull };
  }
  return null;
}

/** Nodes whose value is a boolean, so that `and`/`or` over them mean SQL's AND/OR. */
function compileBoolean(node: Logic): EventPredicate | null {
  if (typeof node === 'boolean') return { op: 'const', value: node };
  if (!isOp(node)) return null;
  const op = Object.keys(node)[0]!;
  const args = argsOf(node, op);
  switch (op) {
    case 'and':
    case 'or': {
      if (args.length === 0) return null;
      const parts = args.map(compileBoolean);
      return parts.every((p): p is EventPredicate => p !== null) ? { op, args: parts } : null;
    }
    case '!':
    case '!!': {
      if (args.length !== 1) return null;
      const inner = compileBoolean(args[0]);
      return inner && (op === '!' ? { op: 'not', arg: inner } : inner);
    }
    case '==':
    case '===':
    case '!=':
    case '!==':
      return comparison(op, args);
    case 'in':
      return membership(args);
    default:
      return null;
  }
}

/** The SQL form of a step's JSONLogic, or null when only TypeScript can evaluate it exactly. */
export function compileEventPredicate(logic: Logic): EventPredicate | null {
  return compileBoolean(logic);
}

/**
 * A condition every event the logic holds for also meets (the compiled conjuncts of a top-level
 * `and`; otherwise always true): what SQL can filter before TypeScript decides.
 */
export function eventPrefilter(logic: Logic): EventPredicate {
  const exact = compileBoolean(logic);
  if (exact) return exact;
  if (isOp(logic) && 'and' in logic) {
    const parts = argsOf(logic, 'and')
      .map(compileBoolean)
      .filter((p): p is EventPredicate => p !== null);
    if (parts.length > 0) return { op: 'and', args: parts };
  }
  return { op: 'const', value: true };
}

/** The JSONLogic of an action step: its action and each payload field strictly equal to a value. */
export function actionStepLogic(action: string, where: Record<string, JsonScalar> = {}): Logic {
  const conditions = Object.entries(where).map(([key, value]) => ({ '===': [{ var: `payload.${key}` }, value] }));
  const byAction = { '===': [{ var: 'action' }, action] };
  return conditions.length === 0 ? byAction : { and: [byAction, ...conditions] };
}
