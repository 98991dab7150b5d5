import { OpenApiGeneratorV31, OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { ALLOWED_HEADERS, ALLOWED_METHODS } from '@spoor/http';
import { HTTPValidationError, INGEST_OPERATIONS, operationId } from '@spoor/schemas';
import { documentOperation } from './operation-route.js';

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

/**
 * The ingest operations, served by the ingest service (on its fast lane) but part of the one
 * public API: documented from the same Operation objects ingest mounts.
 */
export function registerIngestOperations(registry: OpenAPIRegistry): void {
  for (const op of INGEST_OPERATIONS) documentOperation(registry, op);
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
      parameters: [...path.matchAll(/\{(\w+)\}/g)].map((m) => ({
        name: m[1],
        in: 'path',
        required: true,
        schema: { type: 'string' },
      })),
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
    info: {
      title: 'Spoor',
      version,
      description: 'Behavioural event logging: ingestion, sessions, events, projects, rules, tags.',
    },
    servers: serverUrl ? [{ url: serverUrl }] : [],
  });
  addPreflights((document.paths ?? {}) as Record<string, PathItem>);
  return document;
}
