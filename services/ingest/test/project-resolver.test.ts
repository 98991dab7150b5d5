import { expect } from 'chai';
import type { ProjectRecord } from '@spoor/schemas';
import type { ProjectRepository } from '@spoor/store';
import { ProjectResolver } from '../src/project-resolver.js';

// Issue 16: while the store is away, ingest keeps accepting events of projects it knew (Kafka
// holds them); a project never seen still fails, and a miss is not served stale.
describe('ProjectResolver while the store cannot answer', () => {
  const project = { project_id: 'p1', origin: 'https://a.example', project: 'a/web' } as ProjectRecord;
  let now = 0;
  let down = false;
  const repo = {
    find: async (origin: string) => {
      if (down) throw new Error('connect ECONNREFUSED');
      return origin === project.origin ? project : null;
    },
    findByName: async () => {
      if (down) throw new Error('connect ECONNREFUSED');
      return [project];
    },
  } as unknown as ProjectRepository;

  it('serves a project found before its cache entry expired, and fails for the rest', async () => {
    const resolver = new ProjectResolver(repo, () => now, 10_000, 1_000);
    expect(await resolver.find(project.origin, project.project)).to.equal(project);
    expect(await resolver.find('https://b.example', 'b/web')).to.equal(null);
    down = true;
    now += 60_000;
    expect(await resolver.find(project.origin, project.project)).to.equal(project);
    let failed: unknown = null;
    await resolver.find('https://b.example', 'b/web').catch((err: unknown) => (failed = err));
    expect(String(failed)).to.match(/ECONNREFUSED/);
    down = false;
  });
});
