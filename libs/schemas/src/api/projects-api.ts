import { z, EpochMs } from '../zod.js';
import { Origin, ProjectName } from './common.js';

export const ProjectItem = z.object({ origin: z.string(), project: z.string(), verified: z.boolean(), created_at: EpochMs }).openapi('Project');
export const ProjectList = z.object({ projects: z.array(ProjectItem) }).openapi('ProjectList');
export const CreateProjectRequest = z.object({ origin: Origin, project: ProjectName }).openapi('CreateProjectRequest');
export const VerificationRecord = z.object({ type: z.literal('TXT'), name: z.string(), value: z.string() }).openapi('VerificationRecord');
export const ProjectRegistration = ProjectItem.extend({ verification: VerificationRecord }).openapi('ProjectRegistration');
export const VerifyProjectResult = ProjectItem.extend({ verification: VerificationRecord, reason: z.string().optional() }).openapi('VerifyProjectResult');
