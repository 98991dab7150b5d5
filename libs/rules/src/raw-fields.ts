// The DNS gate through logic (issue 42, item 1). An unverified origin's raw fields — payload, IP,
// user agent, URL and its query, referrer, the location below the country — are readable once
// its domain is verified: GET /v1/events answers 403 until then. Logic evaluated over its
// stored events must not read them either: an attribute rule whose value is `{"var":"payload"}`
// copied the payload into the session's attributes, and a funnel step on `payload.secret`
// answered yes or no to a guess. So logic over an unverified origin's events may read only what
// its owner can already see of them: the session summaries and the overview (action, times,
// path, country, browser, OS, device, UTM, bot).

/** Event fields logic may read whatever the origin's verification: what summaries already show. */
const SUMMARY_FIELDS = new Set([
  'event_id',
  'project_id',
  'project',
  'origin',
  'action',
  'timestamp',
  'client_timestamp',
  'sent_at',
  'received_at',
  'session_id',
  'bot',
  'path',
  'geo.country',
  'browser',
  'os',
  'device',
  'utm',
]);
const SUMMARY_PREFIXES = ['browser.', 'os.', 'device.', 'utm.'];

/** Whether reading `name` (a `var` path) stays within what summaries show. */
function isSummaryField(name: string): boolean {
  return SUMMARY_FIELDS.has(name) || SUMMARY_PREFIXES.some((p) => name.startsWith(p));
}

/** How a field read by name is shown in a message: the whole event for `""`. */
const shown = (name: string) => (name === '' ? '(the whole event)' : name);

/**
 * The raw fields `logic` reads, in order of first appearance, no repeats: every `var`, `missing`
 * and `missing_some` name outside the summary fields. A name computed at evaluation time (a
 * `var` of an expression) counts as raw: what it reads cannot be known before. Names inside
 * `map`, `filter`, `all`, `some`, `none` and `reduce` count too (conservative: they name the
 * items of an array, which is raw whenever the array is, and no summary field is an array).
 */
export function rawFieldsRead(logic: unknown): string[] {
  const found = new Set<string>();
  const name = (n: unknown) => {
    // json-logic-js reads the whole event for a `var` of "", null or nothing.
    if (n === null || n === undefined) found.add(shown(''));
    else if (typeof n === 'string' || typeof n === 'number') {
      if (!isSummaryField(String(n))) found.add(shown(String(n)));
    } else {
      found.add('(a computed field name)');
      walk(n);
    }
  };
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(walk);
    if (node === null || typeof node !== 'object') return;
    for (const [op, args] of Object.entries(node)) {
      const list = Array.isArray(args) ? args : [args];
      if (op === 'var') {
        name(list.length === 0 ? '' : list[0]);
        list.slice(1).forEach(walk);
      } else if (op === 'missing') {
        list.forEach((a) =>
          typeof a === 'object' && a !== null && !Array.isArray(a) ? walk(a) : [a].flat().forEach(name),
        );
      } else if (op === 'missing_some') {
        walk(list[0]);
        const names = list[1];
        if (Array.isArray(names)) names.forEach(name);
        else walk(names);
      } else list.forEach(walk);
    }
  };
  walk(logic);
  return [...found];
}
