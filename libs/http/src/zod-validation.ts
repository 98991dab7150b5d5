import type { z } from 'zod';
import { errors, type ValidationDetail } from './http-errors.js';
import { isEchoable } from './safe-json.js';

export type Location = 'body' | 'query' | 'path';

const TYPE_NAMES: Record<string, [string, string]> = {
  string: ['string_type', 'Input should be a valid string'],
  number: ['int_type', 'Input should be a valid integer'],
  int: ['int_type', 'Input should be a valid integer'],
  boolean: ['bool_type', 'Input should be a valid boolean'],
  object: ['dict_type', 'Input should be a valid dictionary'],
  record: ['dict_type', 'Input should be a valid dictionary'],
  array: ['list_type', 'Input should be a valid list'],
};

function sizeIssue(issue: z.core.$ZodIssue & { code: 'too_big' | 'too_small' }): [string, string] {
  const big = issue.code === 'too_big';
  const n = String(issue.code === 'too_big' ? issue.maximum : issue.minimum);
  switch (issue.origin) {
    case 'string':
      return big
        ? ['string_too_long', `String should have at most ${n} characters`]
        : ['string_too_short', `String should have at least ${n} characters`];
    case 'array':
    case 'set':
      return big
        ? ['too_long', `List should have at most ${n} items`]
        : ['too_short', `List should have at least ${n} items`];
    default:
      return big
        ? ['less_than_equal', `Input should be less than or equal to ${n}`]
        : ['greater_than_equal', `Input should be greater than or equal to ${n}`];
  }
}

function describe(issue: z.core.$ZodIssue, input: unknown): [string, string] {
  switch (issue.code) {
    case 'invalid_type':
      if (input === undefined) return ['missing', 'Field required'];
      return TYPE_NAMES[issue.expected] ?? ['type_error', issue.message];
    case 'too_big':
    case 'too_small':
      return sizeIssue(issue);
    case 'invalid_value':
      return ['enum', `Input should be ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`];
    case 'unrecognized_keys':
      return ['extra_forbidden', `Extra inputs are not permitted: ${issue.keys.join(', ')}`];
    case 'invalid_format':
      return ['value_error', issue.message];
    case 'custom': {
      // Refinements name their FastAPI type in params.type (rule logic checks, for one).
      const type = (issue.params as { type?: unknown } | undefined)?.type;
      return [typeof type === 'string' ? type : 'value_error', issue.message];
    }
    default:
      return ['value_error', issue.message];
  }
}

function inputAt(root: unknown, path: PropertyKey[]): unknown {
  let cur: unknown = root;
  for (const key of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[key];
  }
  return cur;
}

/** Turns zod issues into FastAPI's HTTPValidationError items (DESIGN.md, HTTP conventions). */
export function toValidationDetails(
  issues: z.core.$ZodIssue[],
  root: unknown,
  loc: Location,
  prefix: Array<string | number> = [],
): ValidationDetail[] {
  return issues.map((issue) => {
    const path = issue.path.map((p) => (typeof p === 'number' ? p : String(p)));
    const input = inputAt(root, issue.path);
    const [type, msg] = describe(issue, input);
    const item: ValidationDetail = { loc: [loc, ...prefix, ...path], msg, type };
    // FastAPI echoes the input; deep or large inputs are left out so an error answer stays small and safe to serialise.
    if (input !== undefined && type !== 'missing' && isEchoable(input)) item.input = input;
    return item;
  });
}

/** Parses `value` with `schema`, or throws the 422 HttpError that FastAPI would answer. */
export function parseOr422<S extends z.ZodType>(
  schema: S,
  value: unknown,
  loc: Location,
  prefix: Array<string | number> = [],
): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw errors.validation(toValidationDetails(result.error.issues, value, loc, prefix));
}
