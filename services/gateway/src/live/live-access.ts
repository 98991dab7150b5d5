// Who may keep watching a project (issue 42, item 3). A live stream outlives the request that
// opened it, so the answer that request got is asked again while the stream is open: the same
// two steps every request takes — the auth guard's principal resolution (Authenticator) and the
// project scope lookup (scopedProject) — so whatever ends a request's access (logout, a deleted
// API key, a deleted account or project, and later a withdrawn membership) ends the stream too,
// without a list of special cases here.
import { createHash } from 'node:crypto';
import type { Authenticator } from '@spoor/auth';
import { HttpError } from '@spoor/http';
import type { ProjectRecord } from '@spoor/schemas';
import type { Store } from '@spoor/store';
import { scopedProject } from '../project-scope.js';

/** What a stream was opened with: its credential and the project it names. */
export interface LiveGrant {
  /** Streams that share a credential and a project share one check: sha256(header) + project id. */
  readonly key: string;
  /** The Authorization header, as the request sent it (held in memory only, never logged). */
  readonly authorization: string | undefined;
  readonly origin: string;
  readonly project: string;
  /** The project the stream was opened on: one deleted and registered again is another project. */
  readonly projectId: string;
}

export function liveGrant(authorization: string | undefined, project: ProjectRecord): LiveGrant {
  const credential = createHash('sha256')
    .update(authorization ?? '')
    .digest('base64url');
  return {
    key: `${credential}:${project.project_id}`,
    authorization,
    origin: project.origin,
    project: project.project,
    projectId: project.project_id,
  };
}

/** Why access ended: what a new request with the same credential would be answered now. */
export interface AccessEnded {
  status: number;
  detail: string;
}

/**
 * Is this principal still allowed this project: null while it is, else the refusal a request
 * would get. A failure that is not a refusal (the store unreachable) throws: the caller keeps the
 * stream, as a request would have been answered 5xx, not 401, 403 or 404.
 */
export type LiveAccessCheck = (grant: LiveGrant) => Promise<AccessEnded | null>;

export function liveAccessCheck(authenticator: Authenticator, store: Store): LiveAccessCheck {
  return async (grant) => {
    try {
      const principal = await authenticator.authenticate(grant.authorization);
      const project = await scopedProject(store, principal, grant.origin, grant.project, 'viewer');
      return project.project_id === grant.projectId ? null : { status: 404, detail: 'Project not found' };
    } catch (err) {
      if (err instanceof HttpError && err.status < 500 && typeof err.detail === 'string')
        return { status: err.status, detail: err.detail };
      throw err;
    }
  };
}
