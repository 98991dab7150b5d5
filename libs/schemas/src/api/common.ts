import { z, EpochMs } from '../zod.js';

/** Query integers arrive as text: accept only plain digits, so `abc` and `1.5` answer 422. */
const queryInt = (schema: z.ZodNumber) =>
  z.preprocess((v) => (typeof v === 'string' && /^-?\d+$/.test(v) ? Number(v) : v), schema);

export const Origin = z
  .string()
  .min(1)
  .max(512)
  .openapi({ description: 'Origin URL of the project', example: 'https://acme.example' });
export const ProjectName = z
  .string()
  .min(1)
  .max(200)
  .openapi({ description: 'Project identifier, a slash-separated path', example: 'acme/web' });

/**
 * The identifier a project is registered with: the spec's "slash-separated path-like string"
 * (Resources, Project), each segment a letter or digit then letters, digits, `.`, `_` or `-`
 * (so no `.` or `..` segment). `x y`, `/web` and `a//b` were accepted (issue 20). Only
 * registration checks the form, so a project registered before is still found by its name.
 */
export const NewProjectName = z
  .string()
  .min(1)
  .max(200)
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9._-]*(\/[A-Za-z0-9][A-Za-z0-9._-]*)*$/,
    'must be a slash-separated path such as acme/web: each part a letter or digit, then letters, digits, ".", "_" or "-"',
  )
  .openapi({ description: 'Project identifier, a slash-separated path', example: 'acme/web' });

/** `origin` and `project`: they scope most requests (spec, Endpoints rule 7). */
export const ScopeQuery = z.object({ origin: Origin, project: ProjectName });

export const limitParam = (fallback: number, max: number) =>
  queryInt(z.number().int().min(1).max(max))
    .optional()
    .default(fallback)
    .openapi({ type: 'integer', minimum: 1, maximum: max, default: fallback });

export const WindowQuery = z.object({
  window_start: queryInt(EpochMs)
    .optional()
    .openapi({ type: 'integer', description: 'Inclusive start, ms since the epoch' }),
  window_end: queryInt(EpochMs)
    .optional()
    .openapi({ type: 'integer', description: 'Exclusive end, ms since the epoch' }),
});

export const ValidationError = z
  .object({
    loc: z.array(z.union([z.string(), z.number().int()])),
    msg: z.string(),
    type: z.string(),
    input: z.unknown().optional(),
  })
  .openapi('ValidationError');

export const HTTPValidationError = z.object({ detail: z.array(ValidationError) }).openapi('HTTPValidationError');
export const ErrorBody = z.object({ detail: z.string() }).openapi('ErrorBody');
