// The account and project a user would have: created through the gateway's own API, as the
// README tells a user to (signup, then register the origin). A loopback origin counts as
// verified (DESIGN.md, Projects), so every read endpoint answers without a DNS record.
import { postJson } from '../shared/api-post.js';

/** The site whose events the dataset holds. */
export const READ_ORIGIN = 'http://localhost:3000';
export const READ_PROJECT = 'bench/read';
const PASSWORD = 'bench-read-password';

export interface BenchAccount {
  email: string;
  /** As the gateway normalised it; the store keys the project by this. */
  origin: string;
  project: string;
}

/** Signs up a fresh account and registers the bench project to it. */
export async function createAccountAndProject(baseUrl: string, runId: string): Promise<BenchAccount> {
  const email = `bench-read-${runId}@example.com`;
  const { id_token } = await postJson<{ id_token: string }>(`${baseUrl}/v1/auth/signup`, { email, password: PASSWORD });
  const registered = await postJson<{ origin: string; project: string; verified: boolean }>(
    `${baseUrl}/v1/users/projects`,
    { origin: READ_ORIGIN, project: READ_PROJECT },
    id_token,
  );
  if (!registered.verified)
    throw new Error(`the project at ${registered.origin} is not verified; a loopback origin should be`);
  return { email, origin: registered.origin, project: registered.project };
}

/** Logs in again (after the restart: the issuer's keys live in the store) and returns an ID token. */
export async function login(baseUrl: string, email: string): Promise<string> {
  const { id_token } = await postJson<{ id_token: string }>(`${baseUrl}/v1/auth/login`, { email, password: PASSWORD });
  return id_token;
}
