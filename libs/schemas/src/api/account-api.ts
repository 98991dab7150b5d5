import { API_KEY_SCOPES } from '../accounts.js';
import { z, EpochMs } from '../zod.js';

export const ApiKeyScopeSchema = z.enum(API_KEY_SCOPES).openapi('ApiKeyScope', {
  description:
    '`full`: everything the account may do (default). `read`: reading operations only (any GET, and logout). `operator`: `full` plus the operator endpoints; only an operator may create one, and it acts as one while its account is named in SPOOR_ADMIN_EMAILS.',
});

export const Credentials = z
  .object({ email: z.string().email().max(320), password: z.string().min(8).max(256) })
  .openapi('Credentials');
export const TokenResponse = z.object({ id_token: z.string(), expires_at: EpochMs }).openapi('TokenResponse');
export const Account = z.object({ account_id: z.string(), email: z.string().nullable() }).openapi('Account');
export const UserAPIKeyRequest = z
  .object({ api_key_name: z.string().regex(/^[A-Za-z0-9._-]{1,64}$/), scope: ApiKeyScopeSchema.default('full') })
  .openapi('UserAPIKeyRequest');
export const ApiKeyList = z
  .object({ api_keys: z.array(z.object({ api_key_name: z.string(), scope: ApiKeyScopeSchema, created_at: EpochMs })) })
  .openapi('ApiKeyList');
export const CreatedApiKey = z
  .object({ api_key_name: z.string(), api_key: z.string(), scope: ApiKeyScopeSchema })
  .openapi('CreatedApiKey');
export const LoggedOut = z
  .object({
    revoked: z.literal(true),
    expires_at: EpochMs.describe('When the token would have expired; the revocation is kept until then'),
  })
  .openapi('LoggedOut');
export const ApiKeyPath = z.object({ api_key_name: z.string().min(1).max(64) });
export const Deleted = z.object({ deleted: z.boolean() }).openapi('Deleted');
