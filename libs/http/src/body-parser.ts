import express, { type RequestHandler } from 'express';
import { MAX_JSON_DEPTH, jsonDepthExceeds } from '@spoor/schemas';
import { errors } from './http-errors.js';

const JSON_TYPES = ['application/json', 'text/plain', 'application/*+json'];

/**
 * Reads a JSON request body sent as `application/json` or `text/plain` (what `navigator.sendBeacon`
 * sends for a string). Leaves the parsed value in `req.body`; 415 for other types, 413 beyond
 * `limitBytes` (from body-parser, mapped by the error handler), 400 for malformed JSON.
 */
export function jsonBody(limitBytes: number): RequestHandler[] {
  const text = express.text({ type: JSON_TYPES, limit: limitBytes, defaultCharset: 'utf-8' });
  const parse: RequestHandler = (req, _res, next) => {
    const hasBody = Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
    if (!hasBody) {
      req.body = undefined;
      return next();
    }
    if (!req.is(JSON_TYPES)) return next(errors.unsupportedMediaType(req.headers['content-type']));
    const raw = typeof req.body === 'string' ? req.body : '';
    if (raw.trim() === '') {
      req.body = undefined;
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
