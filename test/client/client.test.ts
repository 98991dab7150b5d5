import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { createSpoorClient } from '@spoor/client';
import { requireEngine } from '@spoor/testkit';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { startSpoor, type Harness } from '../support/spoor-harness.js';

describe('libs/client', function () {
  this.timeout(60_000);

  it('is generated from the current OpenAPI document (run scripts/generate-client.mjs when this fails)', async () => {
    // The generator is a plain script beside the sources (scripts/), shared with generate-client.mjs.
    const { renderClientTypes } = (await import(
      pathToFileURL(join(process.cwd(), 'scripts/render-client-types.mjs')).href
    )) as { renderClientTypes(): Promise<string> };
    const committed = readFileSync('libs/client/src/api-types.ts', 'utf8');
    expect(committed === (await renderClientTypes()), 'libs/client/src/api-types.ts drifted from the API').to.equal(
      true,
    );
  });

  describe('against a running server', () => {
    let spoor: Harness;
    before(async function () {
      const started = await startSpoor('embedded');
      requireEngine(this, started ? 'ok' : null, 'embedded mode');
      spoor = started!;
    });
    after(async () => spoor?.stop());

    it('signs up, registers a project and lists sessions with typed calls', async () => {
      const anonymous = createSpoorClient({ baseUrl: spoor.url });
      const signup = await anonymous.POST('/v1/auth/signup', {
        body: { email: 'client@example.com', password: 'long enough pw' },
      });
      expect(signup.response.status).to.equal(200);
      const api = createSpoorClient({ baseUrl: spoor.url, token: signup.data!.id_token });
      const created = await api.POST('/v1/users/projects', {
        body: { origin: 'http://localhost:5173', project: 'client/web' },
      });
      expect(created.data!.verified).to.equal(true);
      const sessions = await api.GET('/v1/sessions', {
        params: { query: { origin: 'http://localhost:5173', project: 'client/web', limit: 5 } },
      });
      expect(sessions.data).to.deep.equal({ sessions: [] });
      const missing = await api.GET('/v1/sessions', {
        params: { query: { origin: 'http://localhost:5173', project: 'nope/web' } },
      });
      expect(missing.response.status).to.equal(404);
      expect(missing.error).to.deep.equal({ detail: 'Project not found' });
    });
  });
});
