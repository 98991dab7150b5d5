import { z, EpochMs } from '../zod.js';
import { IP_POLICIES, RETENTION_DAYS_MAX, RETENTION_DAYS_MIN } from '../projects.js';
import { NewProjectName, Origin, ProjectName, ScopeQuery } from './common.js';
import { PROJECT_ROLES } from './operation.js';

const IpPolicyField = z.enum(IP_POLICIES).openapi({
  description: 'What of the visitor IP is stored: `full`, `truncate` (IPv4 /24, IPv6 /48) or `hash` (salted HMAC)',
});
const RetentionDays = z
  .number()
  .int()
  .min(RETENTION_DAYS_MIN)
  .max(RETENTION_DAYS_MAX)
  .nullable()
  .openapi({ description: 'Days events and sessions are kept; null keeps them forever' });

export const ProjectItem = z
  .object({
    origin: z.string(),
    project: z.string(),
    verified: z.boolean(),
    created_at: EpochMs,
    retention_days: RetentionDays,
    ip_policy: IpPolicyField.openapi({ description: "The IP policy in force: the project's own, else SPOOR_IP_MODE" }),
  })
  .openapi('Project');
/** A project of the listing, with the caller's role on it (issue 45; docs/security.md, Roles). */
export const ProjectListItem = ProjectItem.extend({
  role: z.enum(PROJECT_ROLES).openapi({ description: "The caller's role on the project" }),
}).openapi('ProjectListItem');
export const ProjectList = z.object({ projects: z.array(ProjectListItem) }).openapi('ProjectList');
export const CreateProjectRequest = z
  .object({ origin: Origin, project: NewProjectName })
  .openapi('CreateProjectRequest');
/** Verification finds a registered project, so it takes any name registration once accepted. */
export const VerifyProjectRequest = z.object({ origin: Origin, project: ProjectName }).openapi('VerifyProjectRequest');
export const VerificationRecord = z
  .object({ type: z.literal('TXT'), name: z.string(), value: z.string() })
  .openapi('VerificationRecord');
export const ProjectRegistration = ProjectItem.extend({ verification: VerificationRecord }).openapi(
  'ProjectRegistration',
);
export const VerifyProjectResult = ProjectItem.extend({
  verification: VerificationRecord,
  reason: z.string().optional(),
}).openapi('VerifyProjectResult');

/** PATCH /v1/projects (issue 17, docs/data.md): either field, at least one. */
export const UpdateProjectRequest = z
  .object({ retention_days: RetentionDays.optional(), ip_policy: IpPolicyField.optional() })
  .strict()
  .refine((b) => b.retention_days !== undefined || b.ip_policy !== undefined, {
    message: 'Give retention_days, ip_policy or both',
  })
  .openapi('UpdateProjectRequest');
export const UpdateProjectQuery = ScopeQuery;
