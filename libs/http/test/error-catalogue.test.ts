import { expect } from 'chai';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ERROR_CATALOGUE, ERROR_CODES, describeFailures, type ErrorCode } from '@spoor/schemas';
import { HttpError, createError, errors } from '../src/index.js';

// Issue 20, item 2: every error comes from one catalogue (fastify's createError is the model).

const entry = (
  code: ErrorCode,
): { status: number; message: string | null; description: string; headers?: Record<string, string | null> } =>
  ERROR_CATALOGUE[code];

describe('error catalogue', () => {
  it('gives every code a status, a message and a description the document can join', () => {
    expect(ERROR_CODES.length).to.be.greaterThan(20);
    for (const code of ERROR_CODES) {
      const e = entry(code);
      expect(code, code).to.match(/^[a-z][a-z_]*[a-z]$/);
      expect(e.status, code).to.be.within(400, 599);
      expect(e.description, code).to.be.a('string').and.not.be.empty;
      expect(e.description, code).to.not.include('; or ');
      if (e.message === null) expect(e.status, code).to.equal(422);
    }
  });

  it('makes each code with its status, its message filled in order, and its fixed headers', () => {
    expect(createError('malformed_json', 'Unexpected end')).to.include({
      status: 400,
      code: 'malformed_json',
      detail: 'Malformed JSON: Unexpected end',
    });
    expect(createError('unsupported_media_type', 'text/xml', 'application/json').detail).to.equal(
      'Unsupported content type text/xml; send application/json',
    );
    expect(createError('event_too_large', 'events.3', 32768).detail).to.equal('Event events.3 exceeds 32768 bytes');
    expect(createError('unauthorized', 'Token expired')).to.deep.include({
      status: 401,
      headers: { 'WWW-Authenticate': 'Bearer' },
    });
    const items = [{ loc: ['body', 'x'], msg: 'Field required', type: 'missing' }];
    expect(createError('validation_error', items)).to.deep.include({ status: 422, detail: items });
    for (const code of ERROR_CODES) {
      const e = entry(code);
      if (e.message === null || e.message.includes('%s')) continue;
      const made = createError(code as 'internal');
      expect(made, code).to.be.instanceOf(HttpError).and.include({ status: e.status, code, detail: e.message });
    }
  });

  it('refuses a code that is not catalogued, so no status is made up beside the catalogue', () => {
    expect(() => new HttpError('teapot' as ErrorCode, 'short and stout')).to.throw(
      TypeError,
      /not in the error catalogue/,
    );
  });

  it('fills the headers a code names with the values its shorthand takes', () => {
    expect(errors.tooManyRequests(7)).to.deep.include({
      status: 429,
      code: 'rate_limited',
      headers: { 'Retry-After': '7' },
    });
    expect(errors.unavailable('Starting; retry shortly', 2)).to.deep.include({
      status: 503,
      code: 'unavailable',
      headers: { 'Retry-After': '2' },
    });
    expect(errors.methodNotAllowed(['GET', 'HEAD'])).to.deep.include({ status: 405, headers: { Allow: 'GET, HEAD' } });
    const made: Record<keyof typeof errors, HttpError> = {
      malformedJson: errors.malformedJson('x'),
      requestAborted: errors.requestAborted(),
      tooDeep: errors.tooDeep(64),
      unauthorized: errors.unauthorized(),
      notFound: errors.notFound('Session not found'),
      methodNotAllowed: errors.methodNotAllowed(['GET']),
      conflict: errors.conflict('x'),
      bodyTooLarge: errors.bodyTooLarge(1024),
      unsupportedMediaType: errors.unsupportedMediaType(undefined),
      validation: errors.validation([]),
      tooManyRequests: errors.tooManyRequests(1),
      unavailable: errors.unavailable('x'),
      internal: errors.internal(),
    };
    for (const [name, error] of Object.entries(made)) {
      const e = entry(error.code);
      expect(error.status, name).to.equal(e.status);
      for (const header of Object.keys(e.headers ?? {}))
        expect(error.headers[header], `${name} ${header}`).to.be.a('string').and.not.be.empty;
    }
  });

  it('documents one response per status, joining the descriptions of its codes', () => {
    const described = describeFailures(['not_found', 'domain_unverified', 'read_only_key', 'validation_error']);
    expect([...described.keys()]).to.deep.equal([403, 404, 422]);
    expect(described.get(403)!.description).to.equal(
      `${entry('domain_unverified').description}; or ${entry('read_only_key').description}`,
    );
    expect(described.get(404)!.description).to.equal(entry('not_found').description);
  });

  it('is the only place an error status is made: no HttpError or error status written beside it in any source', () => {
    const root = join(process.cwd());
    const sources: string[] = [];
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) continue;
        const path = join(dir, name);
        if (statSync(path).isDirectory()) walk(path);
        else if (/\.ts$/.test(name) && /\/src\//.test(path)) sources.push(path);
      }
    };
    for (const top of ['libs', 'services']) walk(join(root, top));
    expect(sources.length).to.be.greaterThan(100);
    // The catalogue's own module builds HttpErrors; AuthError adds a reason to `unauthorized`.
    const builders = new Set(['libs/http/src/http-errors.ts']);
    const offences: string[] = [];
    for (const path of sources) {
      const rel = relative(root, path);
      const text = readFileSync(path, 'utf8');
      text.split('\n').forEach((line, i) => {
        const at = `${rel}:${i + 1}: ${line.trim()}`;
        if (/new HttpError\(/.test(line) && !builders.has(rel)) offences.push(at);
        if (/extends HttpError\b/.test(line) && !/super\('unauthorized'/.test(text)) offences.push(at);
        // A status of 400 and above written by hand: res.status(4xx), writeHead(5xx), statusCode = 4xx, sendStatus.
        if (/\.status\(\s*[45]\d\d\s*\)|writeHead\(\s*[45]\d\d|statusCode\s*=\s*[45]\d\d|sendStatus\(/.test(line))
          offences.push(at);
      });
    }
    // error-handler.ts' last resort, when even the error handler failed, answers the catalogue's 500 body.
    expect(
      offences.filter((o) => !o.startsWith('libs/http/src/error-handler.ts') || !o.includes('INTERNAL_BODY')),
    ).to.deep.equal([]);
  });
});
