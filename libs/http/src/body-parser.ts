import express, { type RequestHandler } from 'express';
import { MAX_JSON_DEPTH, jsonDepthExceeds } from '@spoor/schemas';
import { errors } from './http-errors.js';

const JSON_TYPES = ['application/json', 'application/*+json'];
const BEACON_TYPES = [...JSON_TYPES, 'text/plain'];

export interface JsonBodyOptions {
  /**
   * Also read `text/plain` as JSON: what `navigator.sendBeacon` sends for a string, and what the
   * logger posts to skip the CORS preflight. Only the ingest endpoints take it; every other
   * JSON endpoint answers 415, as FastAPI does, rather than a puzzling 422 (issue 20).
   */
  textPlain?: boolean;
  /**
   * false: leave the body's text in `req.body` unparsed (an operation that parses it off the
   * HTTP thread; Operation.bodyText). The type, size and emptiness rules are the same.
   */
  parse?: boolean;
}

/** `application/json; charset=utf-8` → `application/json`; '' when there is no header. */
const mediaType = (header: string | undefined) => (header ?? '').split(';')[0]!.trim().toLowerCase();
const JSON_SUFFIX = /^application\/[^/]+\+json$/;

/**
 * Reads a JSON request body sent as `application/json` (or `text/plain`, see JsonBodyOptions).
 * Leaves the parsed value in `req.body`; 415 for other types, 413 beyond `limitBytes` (from
 * body-parser, mapped by the error handler), 400 for malformed JSON.
 */
export function jsonBody(limitBytes: number, options: JsonBodyOptions = {}): RequestHandler[] {
  const types = options.textPlain ? BEACON_TYPES : JSON_TYPES;
  const accepted = options.textPlain ? 'application/json or text/plain' : 'application/json';
  const text = express.text({ type: types, limit: limitBytes, defaultCharset: 'utf-8' });
  const parse: RequestHandler = (req, _res, next) => {
    const hasBody = Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
    // A JSON endpoint refuses a named other type even with an empty body: `text/plain` and
    // nothing answered 422 "Field required". The ingest endpoints keep the fast lane's rules
    // (fast-lane.ts), which the two doors' comparison test holds them to.
    const named = mediaType(req.headers['content-type']);
    if (!options.textPlain && !hasBody && named !== '' && named !== 'application/json' && !JSON_SUFFIX.test(named)) {
      return next(errors.unsupportedMediaType(req.headers['content-type'], accepted));
    }
    if (!hasBody) {
      req.body = undefined;
      return next();
    }
    if (!req.is(types)) return next(errors.unsupportedMediaType(req.headers['content-type'], accepted));
    const raw = typeof req.body === 'string' ? req.body : '';
    if (raw.trim() === '') {
      req.body = undefined;
      return next();
    }
    if (options.parse === false) {
      req.body = raw;
      return next();
    }
    try {
      req.body = parseJsonBody(raw);
    } catch (err) {
      return next(err);
    }
    next();
  };
  return [text, parse];
}

/**
 * JSON.parse with the depth limit every body obeys (a deep body is refused before any walk of
 * it can overflow the stack). Throws the catalogue's 400 or 422.
 */
export function parseJsonBody(raw: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (err) {
    // V8 itself gives up on absurd depths with a RangeError: that is malformed input too.
    throw errors.malformedJson((err as Error).message);
  }
  if (jsonDepthExceeds(value, MAX_JSON_DEPTH)) throw errors.tooDeep(MAX_JSON_DEPTH);
  return value;
}
