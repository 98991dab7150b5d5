// One zod instance, extended once with `.openapi()`, shared by every schema module so that
// validation, TypeScript types and the OpenAPI document all come from the same definitions.
import { extendZodWithOpenApi, OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';

extendZodWithOpenApi(z);

export { z };
export const registry = new OpenAPIRegistry();

/** The latest instant a JavaScript Date can hold, in ms: EpochMs' upper bound. */
export const MAX_EPOCH_MS = 8.64e15;

/** Integer milliseconds since the Unix epoch, UTC (spec: Time conventions). */
export const EpochMs = z
  .number()
  .int()
  .min(0)
  .max(MAX_EPOCH_MS)
  .openapi({ description: 'Milliseconds since the Unix epoch, UTC', example: 1732262400000 });
