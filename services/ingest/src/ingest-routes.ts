import { Router, type Request } from 'express';
import { errors, jsonBody, parseOr422 } from '@spoor/http';
import { IngestBatch, MAX_BODY_BYTES } from '@spoor/schemas';
import type { RequestFacts } from './event-intake.js';
import type { IngestService } from './ingest-service.js';

function facts(req: Request): RequestFacts {
  const origin = req.headers.origin;
  return {
    // Sandboxed frames and file:// pages send the literal "null": no usable origin.
    originHeader: origin && origin !== 'null' ? origin : undefined,
    ip: req.ip ?? req.socket.remoteAddress ?? '',
    userAgent: req.headers['user-agent'] ?? '',
  };
}

function requireBody(req: Request): unknown {
  if (req.body === undefined) throw errors.validation([{ loc: ['body'], msg: 'Field required', type: 'missing' }]);
  return req.body;
}

/** `POST /v1/event` and `POST /v1/event/batch` (DESIGN.md, Ingestion). */
export function ingestRouter(service: IngestService): Router {
  const router = Router();
  const body = jsonBody(MAX_BODY_BYTES);
  router.post('/v1/event', ...body, async (req, res) => {
    const event = requireBody(req);
    res.json(await service.ingest([event], facts(req), () => []));
  });
  router.post('/v1/event/batch', ...body, async (req, res) => {
    const { events } = parseOr422(IngestBatch, requireBody(req), 'body');
    res.json(await service.ingest(events, facts(req), (i) => ['events', i]));
  });
  return router;
}
