/**
 * JSON for answers that must go out whatever they hold. An error body echoes parts of the input
 * (FastAPI's `input`), and a body nested 10,000 deep once made that serialisation throw inside an
 * error path and take the process down (issue 13): these helpers never throw.
 */
import { ERROR_CATALOGUE } from '@spoor/schemas';

/** The catalogue's 500 body, for the paths that must answer without building an HttpError. */
export const INTERNAL_BODY = JSON.stringify({ detail: ERROR_CATALOGUE.internal.message });
const FALLBACK = INTERNAL_BODY;

/** `JSON.stringify(value)`, or the catalogue's 500 body when the value cannot be serialised. */
export function stringifyOrFallback(value: unknown): { body: string; ok: boolean } {
  try {
    const body = JSON.stringify(value);
    return body === undefined ? { body: FALLBACK, ok: false } : { body, ok: true };
  } catch {
    return { body: FALLBACK, ok: false };
  }
}

/** Largest input echoed back in a 422 item, serialised; larger inputs are left out of the item. */
export const MAX_ECHOED_INPUT_CHARS = 1024;

/** Depth beyond which an input is never echoed (the walk below stops there, so it cannot recurse far). */
const MAX_ECHOED_DEPTH = 8;

/**
 * Whether a 422 item may carry `input`: scalars always (strings are capped by the body limit),
 * containers when shallow and small. Iterative, bounded by MAX_ECHOED_INPUT_CHARS nodes.
 */
export function isEchoable(input: unknown): boolean {
  if (input === null || typeof input !== 'object') return typeof input !== 'bigint' && typeof input !== 'function';
  let level: unknown[] = [input];
  let nodes = 0;
  for (let depth = 1; level.length > 0; depth++) {
    if (depth > MAX_ECHOED_DEPTH) return false;
    const next: unknown[] = [];
    for (const item of level) {
      for (const child of Object.values(item as object)) {
        if (++nodes > MAX_ECHOED_INPUT_CHARS) return false;
        if (child !== null && typeof child === 'object') next.push(child);
      }
    }
    level = next;
  }
  const { body, ok } = stringifyOrFallback(input);
  return ok && body.length <= MAX_ECHOED_INPUT_CHARS;
}
