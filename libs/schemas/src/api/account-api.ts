import { z, EpochMs } from '../zod.js';

export const Credentials = z
  .object({ email: z.string().email().max(320), password: z.string().min(8).max(256) })
  .openapi('Credentials');
export const TokenResponse = z.object({ id_token: z.string(), expires_at: EpochMs }).openapi('TokenResponse');
export const Account = z.object({ account_id: z.string(), email: z.string().nullable() }).openapi('Account');
export const UserAPIKeyRequest = z.object({ api_key_name: z.string().regex(/^[A-Za-z0-9._-]{1,64}$/) }).openapi('UserAPIKeyRequest');
export const ApiKeyList = z.object({ api_keys: z.array(z.object({ api_key_name: z.string(), created_at: EpochMs })) }).openapi('ApiKeyList');
export const CreatedApiKey = z.object({ api_key_name: z.string(), api_key: z.string() }).openapi('CreatedApiKey');
export const ApiKeyPath = z.object({ api_key_name: z.string().min(1).max(64) });
export const Deleted = z.object({ deleted: z.boolean() }).openapi('Deleted');
