// The account the readability probes read with, made the way a user makes one (README): sign up
// through the API, then register the project to that account. A loopback origin counts as
// verified (DESIGN.md, Projects), so GET /v1/sessions/{id}/events answers without a DNS record;
// the load is sent with that origin too, in its events and its browser Origin header.
import { randomUUID } from 'node:crypto';
import type { EventTarget } from '../ingest/bench-event.js';
import { postJson } from '../shared/api-post.js';

const ORIGIN = 'http://localhost:3000';
const PROJECT = 'bench/cost';

export interface CostAccount extends EventTarget {
  /** A Bearer token of the account that owns the project. */
  token: string;
}

/** Signs a fresh account up on the server at `baseUrl` and registers the bench project to it. */
export async function createCostAccount(baseUrl: string): Promise<CostAccount> {
  const email = `bench-cost-${randomUUID().slice(0, 8)}@example.com`;
  const { id_token } = await postJson<{ id_token: string }>(`${baseUrl}/v1/auth/signup`, {
    email,
    password: 'bench-cost-password',
  });
  const registered = await postJson<{ origin: string; project: string; verified: boolean }>(
    `${baseUrl}/v1/users/projects`,
    { origin: ORIGIN, project: PROJECT },
    id_token,
  );
  if (!registered.verified)
    throw new Error(`the project at ${registered.origin} is not verified; a loopback origin should be`);
  return { token: id_token, origin: registered.origin, project: registered.project };
}
