import type { JobHandler } from '@spoor/jobs';
import {
  EXPORT_CONTENT_TYPES,
  EXPORT_EXTENSIONS,
  type ExportFormat,
  type ExportResult,
  type ExportWhat,
} from '@spoor/schemas';
import type { Store } from '@spoor/store';
import { projectOf } from './result-jobs.js';

/** How long a finished export can be downloaded (docs/data.md). */
export const EXPORT_RETENTION_MS = 24 * 3_600_000;

interface ExportJobRequest {
  what: ExportWhat;
  format: ExportFormat;
  window_start?: number;
  window_end?: number;
}

/**
 * POST /v1/exports: the engine writes the rows with its own writer (Store.exports); the result
 * names what GET /v1/exports/{id}/file will serve and until when.
 */
export function exportJob(deps: { store: Store; clock: () => number }): JobHandler {
  return async (job, ctx) => {
    const project = await projectOf(deps.store, job.project_id);
    const req = job.request as unknown as ExportJobRequest;
    await ctx.progress(0, 1);
    const writtenAt = deps.clock();
    const file = await deps.store.exports.write({
      export_id: job.job_id,
      project_id: project.project_id,
      what: req.what,
      format: req.format,
      window_start: req.window_start ?? null,
      window_end: req.window_end ?? null,
      written_at: writtenAt,
    });
    await ctx.progress(1, 1);
    const slug = project.project.replace(/[^A-Za-z0-9._-]+/g, '-');
    const result: ExportResult = {
      what: req.what,
      format: req.format,
      window_start: req.window_start ?? null,
      window_end: req.window_end ?? null,
      rows: file.rows,
      bytes: file.bytes,
      content_type: EXPORT_CONTENT_TYPES[req.format],
      file_name: `${slug}-${req.what}-${job.job_id.slice(0, 8)}.${EXPORT_EXTENSIONS[req.format]}`,
      expires_at: writtenAt + EXPORT_RETENTION_MS,
      mark: file.mark,
    };
    return result;
  };
}

/** Once an hour with the other retention work: export files past their time are removed. */
export function purgeExpiredExports(store: Store, now: number): Promise<number> {
  return store.exports.purge(now - EXPORT_RETENTION_MS);
}
