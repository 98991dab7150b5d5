// Public share links (issue 45, item 3; docs/security.md, Share links): a read-only link to a
// project's aggregates, optionally behind a password, made and revoked by an owner or admin.
import { z, EpochMs } from '../zod.js';
import { Origin, ProjectName } from './common.js';
import { StatsQueryFields, refineStatsQuery } from './stats-api.js';

export const SHARE_LIMITS = {
  maxLabelLength: 100,
  passwordMinLength: 8,
  passwordMaxLength: 256,
  /** How long an unlocked password-protected link's grant lasts. */
  grantMs: 12 * 3_600_000,
} as const;

export const ShareCreateRequest = z
  .object({
    origin: Origin,
    project: ProjectName,
    label: z.string().trim().max(SHARE_LIMITS.maxLabelLength).default(''),
    password: z
      .string()
      .min(SHARE_LIMITS.passwordMinLength)
      .max(SHARE_LIMITS.passwordMaxLength)
      .nullable()
      .default(null)
      .openapi({ description: 'Visitors must enter it before seeing anything; stored as a scrypt hash' }),
  })
  .strict()
  .openapi('ShareCreateRequest');

export const ShareItem = z
  .object({
    share_id: z.string(),
    label: z.string(),
    has_password: z.boolean(),
    created_by: z.string(),
    created_at: EpochMs,
  })
  .openapi('ShareLink');
export type ShareItem = z.infer<typeof ShareItem>;

export const ShareCreated = ShareItem.extend({
  link: z.string().openapi({
    description:
      'SPOOR_PUBLIC_URL/share/<token>: the link is the secret (stored as its SHA-256), answered once and never again',
  }),
  token: z.string().openapi({ description: 'The token of the link, for the /v1/shared/{token} operations' }),
}).openapi('ShareCreated');
export const ShareList = z.object({ shares: z.array(ShareItem) }).openapi('ShareList');
export const SharePath = z.object({ share_id: z.string().min(1).max(100) });

export const SharedPath = z.object({ token: z.string().min(1).max(200) });
export const SharedInfo = z
  .object({
    origin: z.string(),
    project: z.string(),
    label: z.string(),
    has_password: z.boolean().openapi({ description: 'POST /v1/shared/{token}/unlock first' }),
  })
  .openapi('SharedInfo');
export const ShareUnlockRequest = z
  .object({ password: z.string().min(1).max(SHARE_LIMITS.passwordMaxLength) })
  .strict()
  .openapi('ShareUnlockRequest');
export const ShareUnlocked = z
  .object({
    grant: z.string().openapi({
      description: 'Send it as `Authorization: Bearer <grant>` with the stats of this link; valid until expires_at',
    }),
    expires_at: EpochMs,
  })
  .openapi('ShareUnlocked');

const namesPayload = (d: string) => d.startsWith('payload:');

/**
 * A stats query without origin and project (the link names them), and without payload
 * properties: they are raw event fields, and a shared link shows only what the session
 * summaries and page paths already aggregate (docs/security.md, Share links).
 */
export const SharedStatsRequest = StatsQueryFields.omit({ origin: true, project: true })
  .superRefine((q, ctx) => {
    refineStatsQuery(q, ctx);
    const refuse = (path: Array<string | number>) =>
      ctx.addIssue({
        code: 'custom',
        message: 'Payload properties are not available through a shared link',
        path,
        params: { type: 'value_error' },
      });
    q.dimensions.forEach((d, i) => {
      if (namesPayload(d)) refuse(['dimensions', i]);
    });
    q.filters.forEach((f, i) => {
      if ('and' in f || 'or' in f) {
        const [key, list] = 'and' in f ? ['and', f.and] : ['or', f.or];
        list.forEach((p, j) => {
          if (namesPayload(p.dimension)) refuse(['filters', i, key, j, 'dimension']);
        });
      } else if (namesPayload(f.dimension)) refuse(['filters', i, 'dimension']);
    });
  })
  .openapi('SharedStatsRequest');
export type SharedStatsInput = z.infer<typeof SharedStatsRequest>;
