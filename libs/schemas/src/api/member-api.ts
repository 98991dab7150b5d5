// Members and invitations of a project (issue 45; docs/api.md, docs/security.md, Roles).
import { z, EpochMs } from '../zod.js';
import { Origin, ProjectName } from './common.js';
import { PROJECT_ROLES } from './operation.js';

const Role = z.enum(PROJECT_ROLES).openapi({ description: 'owner > admin > editor > viewer' });
/** An invitation grants any role but owner: ownership is given to a member (POST /v1/projects/transfer, or a role change by an owner). */
const InvitedRole = z.enum(['admin', 'editor', 'viewer']).openapi({ description: 'admin, editor or viewer' });

export const MemberItem = z
  .object({
    account_id: z.string(),
    email: z.string().nullable(),
    role: Role,
    exports: z.boolean().openapi({
      description:
        'Whether the member may export events and sessions (POST /v1/exports): an editor or above always, a viewer when an owner or admin granted it',
    }),
    created_at: EpochMs,
  })
  .openapi('Member');
export const MemberList = z.object({ members: z.array(MemberItem) }).openapi('MemberList');
export const MemberPath = z.object({ account_id: z.string().min(1).max(200) });
export const ChangeRoleRequest = z
  .object({
    role: Role.optional(),
    exports: z
      .boolean()
      .optional()
      .openapi({ description: "A viewer's grant to export (issue 45): true grants it, false withdraws it" }),
  })
  .strict()
  .refine((b) => b.role !== undefined || b.exports !== undefined, {
    message: 'Give role, exports or both',
    path: ['role'],
  })
  .openapi('ChangeRoleRequest');
export const TransferRequest = z
  .object({ account_id: z.string().min(1).max(200) })
  .strict()
  .openapi('TransferRequest');
export const LeaveResult = z.object({ left: z.literal(true) }).openapi('LeaveResult');

export const InvitationRequest = z
  .object({ origin: Origin, project: ProjectName, email: z.string().email().max(320), role: InvitedRole })
  .strict()
  .openapi('InvitationRequest');
export const InvitationItem = z
  .object({
    invitation_id: z.string(),
    email: z.string(),
    role: Role,
    invited_by: z.string(),
    created_at: EpochMs,
    expires_at: EpochMs,
  })
  .openapi('Invitation');
export const InvitationCreated = InvitationItem.extend({
  mailed: z.boolean().openapi({ description: 'Whether the invitation mail was sent (SPOOR_SMTP_URL)' }),
  link: z
    .string()
    .nullable()
    .openapi({ description: 'The link to pass on yourself, answered only when no mail was sent; never again' }),
}).openapi('InvitationCreated');
export const InvitationList = z.object({ invitations: z.array(InvitationItem) }).openapi('InvitationList');
export const InvitationPath = z.object({ invitation_id: z.string().min(1).max(100) });
export const AcceptInvitationRequest = z
  .object({ token: z.string().min(1).max(200) })
  .strict()
  .openapi('AcceptInvitationRequest');
export const AcceptedInvitation = z
  .object({ origin: z.string(), project: z.string(), role: Role })
  .openapi('AcceptedInvitation');
