import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import type { RequestHandler } from 'express';

/** A name that changes with its bytes can be cached for a year. */
export const IMMUTABLE_CACHE = 'public, max-age=31536000, immutable';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.map': 'application/json; charset=utf-8',
};

/** A file of a build (the logger, the dashboard), read once at start-up. */
export interface BuiltFile {
  body: Buffer;
  type: string;
  /** 16 characters of the bytes' SHA-256: the ETag, and the hashed name of the logger. */
  hash: string;
}

export function readBuilt(path: string): BuiltFile {
  const body = readFileSync(path);
  return {
    body,
    type: TYPES[extname(path)] ?? 'application/octet-stream',
    hash: createHash('sha256').update(body).digest('base64url').slice(0, 16),
  };
}

/** If-None-Match names this ETag (in a list, weak or not, or `*`): RFC 9110, 13.1.2. */
function notModified(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(',').some((t) => {
    const tag = t.trim().replace(/^W\//, '');
    return tag === '*' || tag === etag;
  });
}

/**
 * Answers with the file and its ETag, or 304 when the request already holds it. The precondition
 * is checked here rather than left to express' `req.fresh`, which says "not fresh" whenever the
 * request carries `Cache-Control: no-cache`, as fetch adds to every conditional request: a cache
 * rule, not an origin server's (RFC 9110 evaluates If-None-Match regardless). `nosniff` and
 * cross-origin use (a site's <script> from Spoor's origin) for every built file.
 */
export function serveBuilt(file: BuiltFile, cacheControl: string): RequestHandler {
  const etag = `"${file.hash}"`;
  const headers = {
    'Content-Type': file.type,
    'Cache-Control': cacheControl,
    ETag: etag,
    'X-Content-Type-Options': 'nosniff',
    'Cross-Origin-Resource-Policy': 'cross-origin',
  };
  return (req, res) => {
    res.set(headers);
    if (notModified(req.headers['if-none-match'], etag)) return void res.status(304).end();
    res.send(file.body);
  };
}
