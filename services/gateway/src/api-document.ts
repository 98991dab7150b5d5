import { OpenApiGeneratorV31, OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { ALLOWED_HEADERS, ALLOWED_METHODS } from '@spoor/http';
import { ErrorBody, HTTPValidationError, IngestAccepted, IngestBatch, IngestEvent } from '@spoor/schemas';
import { operationId } from './operation-route.js';

export function createApiRegistry(): OpenAPIRegistry {
  const registry = new OpenAPIRegistry();
  // Spec (Authentication, 3): each operation names one identity-provider authorizer, no scopes.
  registry.registerComponent('securitySchemes', 'bearerAuth', {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: 'An OIDC ID token (built-in issuer or SPOOR_OIDC_ISSUER), or an API key from POST /v1/users/apikey',
  });
  registry.register('HTTPValidationError', HTTPValidationError);
  return registry;
}

/** The ingest operations, served by the ingest service but part of the one public API. */
export function registerIngestOperations(registry: OpenAPIRegistry): void {
  const failures = {
    400: { description: 'Malformed JSON', content: { 'application/json': { schema: ErrorBody } } },
    403: { description: "Browser Origin differs from the project's origin", content: { 'application/json': { schema: ErrorBody } } },
    404: { description: 'Unknown project', content: { 'application/json': { schema: ErrorBody } } },
    413: { description: 'Event over 32 KiB or body over 1 MiB', content: { 'application/json': { schema: ErrorBody } } },
    415: { description: 'Not application/json or text/plain', content: { 'application/json': { schema: ErrorBody } } },
    422: { description: 'Validation error', content: { 'application/json': { schema: HTTPValidationError } } },
    503: { description: 'Event bus unavailable; retry after Retry-After', content: { 'application/json': { schema: ErrorBody } } },
  };
  const ok = { 200: { description: 'Durably accepted', content: { 'application/json': { schema: IngestAccepted } } } };
  const body = (schema: typeof IngestEvent | typeof IngestBatch) => ({ required: true, content: { 'application/json': { schema }, 'text/plain': { schema } } });
  registry.registerPath({ method: 'post', path: '/v1/event', operationId: 'post_event', summary: 'Record one event (called from browsers; no credentials)', tags: ['ingestion'], security: [], request: { body: body(IngestEvent) }, responses: { ...ok, ...failures } });
  registry.registerPath({ method: 'post', path: '/v1/event/batch', operationId: 'post_event_batch', summary: 'Record up to 500 events', tags: ['ingestion'], security: [], request: { body: body(IngestBatch) }, responses: { ...ok, ...failures } });
}

type PathItem = Record<string, unknown>;

/** Every path answers OPTIONS as an unsecured CORS preflight (spec, Endpoints rule 5). */
function addPreflights(paths: Record<string, PathItem>): void {
  const header = (example: string) => ({ schema: { type: 'string' }, example });
  for (const [path, item] of Object.entries(paths)) {
    item['options'] = {
      operationId: operationId('options', path),
      summary: 'CORS preflight',
      tags: ['cors'],
      security: [],
      parameters: [...path.matchAll(/\{(\w+)\}/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string' } })),
      responses: {
        200: {
          description: 'Empty body with the CORS headers',
          headers: {
            'Access-Control-Allow-Origin': header('*'),
            'Access-Control-Allow-Methods': header(ALLOWED_METHODS),
            'Access-Control-Allow-Headers': header(ALLOWED_HEADERS),
          },
        },
      },
    };
  }
}

export function buildApiDocument(registry: OpenAPIRegistry, version: string, serverUrl: string | null) {
  const document = new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: { title: 'Spoor', version, description: 'Behavioural event logging: ingestion, sessions, events, projects, rules, tags.' },
    servers: serverUrl ? [{ url: serverUrl }] : [],
  });
  addPreflights((document.paths ?? {}) as Record<string, PathItem>);
  return document;
}
