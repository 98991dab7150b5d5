// No service imports another (issue 20, item 3): what two services share lives in libs/, so a
// service can be deployed, scaled and changed alone. services/host, which starts them all in one
// process, is the one exception.
import { expect } from 'chai';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = new URL('../../../', import.meta.url).pathname;
const SERVICES = join(ROOT, 'services');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory())
      return name === 'dist' || name === 'node_modules' || name === 'scratch' ? [] : sourceFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

describe('Service boundaries', () => {
  const services = readdirSync(SERVICES).filter((s) => statSync(join(SERVICES, s)).isDirectory());
  const packages = new Map(
    services.map((s) => [JSON.parse(readFileSync(join(SERVICES, s, 'package.json'), 'utf8')).name as string, s]),
  );

  it('finds the services and their package names', () => {
    expect(services).to.include.members([
      'ingest',
      'enricher',
      'sessionizer',
      'classifier',
      'worker',
      'gateway',
      'host',
    ]);
    expect(packages.get('@spoor/classifier')).to.equal('classifier');
  });

  for (const service of services.filter((s) => s !== 'host')) {
    it(`${service} imports no other service, in code or in package.json`, () => {
      const offending: string[] = [];
      for (const file of sourceFiles(join(SERVICES, service))) {
        for (const m of readFileSync(file, 'utf8').matchAll(/from\s+'([^']+)'|import\(\s*'([^']+)'\s*\)/g)) {
          const spec = m[1] ?? m[2] ?? '';
          const other = packages.get(spec) ?? (spec.startsWith('../../') ? spec.split('/')[2] : undefined);
          if (other && other !== service) offending.push(`${file.slice(ROOT.length)}: ${spec}`);
        }
      }
      const deps = Object.keys(
        JSON.parse(readFileSync(join(SERVICES, service, 'package.json'), 'utf8')).dependencies ?? {},
      );
      offending.push(
        ...deps.filter((d) => packages.has(d) && packages.get(d) !== service).map((d) => `package.json: ${d}`),
      );
      expect(offending).to.deep.equal([]);
    });
  }
});
