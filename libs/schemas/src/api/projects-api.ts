import { z, EpochMs } from '../zod.js';
import { NewProjectName, Origin, ProjectName } from './common.js';

export const ProjectItem = z.object({ origin: z.string(), project: z.string(), verified: z.boolean(), created_at: EpochMs }).openapi('Project');
export const ProjectList = z.object({ projects: z.array(ProjectItem) }).openapi('ProjectList');
export const CreateProjectRequest = z.object({ origin: Origin, project: NewProjectName }).openapi('CreateProjectRequest');
/** Verification finds a registered project, so it takes any name registration once accepted. */
export const VerifyProjectRequest = z.object({ origin: Origin, project: ProjectName }).openapi('VerifyProjectRequest');
export const VerificationRecord = z.object({ type: z.literal('TXT'), name: z.string(), value: z.string() }).openapi('VerificationRecord');
export const ProjectRegistration = ProjectItem.extend({ verification: VerificationRecord }).openapi('ProjectRegistration');
export const VerifyProjectResult = ProjectItem.extend({ verification: VerificationRecord, reason: z.string().optional() }).openapi('VerifyProjectResult');
