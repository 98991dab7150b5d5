import { IngestAccepted, IngestBatch, IngestEvent, MAX_BODY_BYTES } from '../events.js';
import type { Operation } from './operation.js';

// The two ingest operations (DESIGN.md, Ingestion). The ingest service serves them — on its fast
// lane, and through express for what the lane leaves — and the gateway documents them, both from
// these objects; ingest validates each event itself (IngestService), so `body` here describes.
const common = {
  method: 'post',
  tag: 'ingestion',
  auth: false,
  role: 'public',
  response: IngestAccepted,
  responseDescription: 'Durably accepted',
  bodyLimit: MAX_BODY_BYTES,
  textPlain: true,
  failures: ['origin_mismatch', 'unknown_project', 'event_too_large', 'rate_limited', 'unavailable'],
} as const satisfies Omit<Operation, 'path' | 'summary'>;

export const PostEventOperation = {
  ...common,
  path: '/v1/event',
  summary: 'Record one event (called from browsers; no credentials)',
  body: IngestEvent,
} satisfies Operation;

export const PostEventBatchOperation = {
  ...common,
  path: '/v1/event/batch',
  summary: 'Record up to 500 events',
  body: IngestBatch,
} satisfies Operation;

export const INGEST_OPERATIONS: readonly Operation[] = [PostEventOperation, PostEventBatchOperation];
