import { Router, type Request } from 'express';
import type { IncomingMessage } from 'node:http';
import { errors, jsonBody, parseOr422, type FastHandler } from '@spoor/http';
import {
  DEFAULT_BODY_LIMIT,
  IngestBatch,
  PostEventBatchOperation,
  PostEventOperation,
  type Operation,
} from '@spoor/schemas';
import type { RequestFacts } from './event-intake.js';
import type { IngestService } from './ingest-service.js';

function facts(req: IncomingMessage, ip: string, bodyBytes: number | undefined): RequestFacts {
  const origin = req.headers.origin;
  return {
    bodyBytes,
    // Sandboxed frames and file:// pages send the literal "null": no usable origin.
    originHeader: origin && origin !== 'null' ? origin : undefined,
    ip,
    userAgent: req.headers['user-agent'] ?? '',
    traceparent: req.headers.traceparent as string | undefined,
  };
}

function requireBody(body: unknown): unknown {
  if (body === undefined) throw errors.validation([{ loc: ['body'], msg: 'Field required', type: 'missing' }]);
  return body;
}

/** The two ingest operations, free of express: the fast lane and the express routes share them. */
export function ingestHandlers(service: IngestService): { single: FastHandler; batch: FastHandler } {
  return {
    single: (body, req, ip, bytes) => service.ingest([requireBody(body)], facts(req, ip, bytes), () => []),
    batch: (body, req, ip, bytes) => {
      const { events } = parseOr422(IngestBatch, requireBody(body), 'body');
      return service.ingest(events, facts(req, ip, bytes), (i) => ['events', i]);
    },
  };
}

/** Each ingest operation (libs/schemas' ingest-api.ts, which the gateway documents) with its handler. */
function ingestOperations(service: IngestService): Array<{ op: Operation; handler: FastHandler }> {
  const h = ingestHandlers(service);
  return [
    { op: PostEventOperation, handler: h.single },
    { op: PostEventBatchOperation, handler: h.batch },
  ];
}

const limitOf = (op: Operation) => op.bodyLimit ?? DEFAULT_BODY_LIMIT;

/** `POST /v1/event` and `POST /v1/event/batch` (DESIGN.md, Ingestion) as fast routes, served beside express. */
export function ingestFastRoutes(service: IngestService) {
  return ingestOperations(service).map(({ op, handler }) => ({ path: op.path, handler, limitBytes: limitOf(op) }));
}

/** The same operations through express: the paths the fast lane leaves (a trailing slash, a compressed body, another charset). */
export function ingestRouter(service: IngestService): Router {
  const router = Router();
  const ip = (req: Request) => req.ip ?? req.socket.remoteAddress ?? '';
  for (const { op, handler } of ingestOperations(service)) {
    router[op.method](
      op.path,
      ...jsonBody(limitOf(op), { textPlain: op.textPlain ?? false }),
      async (req, res) => void res.json(await handler(req.body, req, ip(req))),
    );
  }
  return router;
}
