import { Router, type Request } from 'express';
import type { IncomingMessage } from 'node:http';
import { errors, jsonBody, parseOr422, type FastHandler } from '@spoor/http';
import { IngestBatch, MAX_BODY_BYTES } from '@spoor/schemas';
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

/** `POST /v1/event` and `POST /v1/event/batch` (DESIGN.md, Ingestion) as fast routes, served beside express. */
export function ingestFastRoutes(service: IngestService) {
  const h = ingestHandlers(service);
  return [
    { path: '/v1/event', handler: h.single, limitBytes: MAX_BODY_BYTES },
    { path: '/v1/event/batch', handler: h.batch, limitBytes: MAX_BODY_BYTES },
  ];
}

/** The same operations through express: the paths the fast lane leaves (a trailing slash, a compressed body, another charset). */
export function ingestRouter(service: IngestService): Router {
  const router = Router();
  const body = jsonBody(MAX_BODY_BYTES, { textPlain: true });
  const h = ingestHandlers(service);
  const ip = (req: Request) => req.ip ?? req.socket.remoteAddress ?? '';
  router.post('/v1/event', ...body, async (req, res) => void res.json(await h.single(req.body, req, ip(req))));
  router.post('/v1/event/batch', ...body, async (req, res) => void res.json(await h.batch(req.body, req, ip(req))));
  return router;
}
