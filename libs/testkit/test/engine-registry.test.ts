import { expect } from 'chai';
import { engineUrl, printSkippedBanner, stopAllEngines, type EngineDefinition } from '../src/engine-registry.js';
import type { StartedEngine } from '../src/started-engine.js';

/** Runs `work` with stderr captured, so the SKIPPED lines can be asserted on. */
async function capturingStderr<T>(work: () => Promise<T>): Promise<{ result: T; stderr: string }> {
  const original = process.stderr.write.bind(process.stderr);
  let stderr = '';
  process.stderr.write = ((chunk: string | Uint8Array) => {
    stderr += String(chunk);
    return true;
  }) as typeof process.stderr.write;
  try {
    return { result: await work(), stderr };
  } finally {
    process.stderr.write = original;
  }
}

function fakeEngine(name: EngineDefinition['name'], start: () => Promise<StartedEngine>): EngineDefinition {
  // A variable nobody sets, so the registry goes on to start the engine.
  return { name, envVar: `SPOOR_TESTKIT_UNSET_${Date.now()}`, startLocal: start, startContainer: start };
}

describe('engine registry', function () {
  const savedRequire = process.env.SPOOR_REQUIRE_INFRA;
  // `npm run test:unit` sets SPOOR_TEST_ENGINES=none; these cases start (fake) engines.
  const savedEngines = process.env.SPOOR_TEST_ENGINES;

  // Engines started by earlier test files share these names: start from a clean registry.
  before(async function () {
    delete process.env.SPOOR_TEST_ENGINES;
    await capturingStderr(stopAllEngines);
  });
  after(function () {
    if (savedEngines === undefined) delete process.env.SPOOR_TEST_ENGINES;
    else process.env.SPOOR_TEST_ENGINES = savedEngines;
  });

  afterEach(async function () {
    delete process.env.SPOOR_TEST_ENGINES;
    if (savedRequire === undefined) delete process.env.SPOOR_REQUIRE_INFRA;
    else process.env.SPOOR_REQUIRE_INFRA = savedRequire;
    await capturingStderr(stopAllEngines); // resets the registry between cases
  });

  it('returns null and prints one SKIPPED line with the reason when an engine cannot start', async function () {
    delete process.env.SPOOR_REQUIRE_INFRA;
    const engine = fakeEngine('redis', () => Promise.reject(new Error('redis-server not found\nlog line 1')));
    const { result, stderr } = await capturingStderr(() => engineUrl(engine));
    expect(result).to.equal(null);
    expect(stderr).to.contain('SKIPPED: redis could not start: redis-server not found\n');
    expect(stderr).to.contain('  | log line 1');
    const banner = await capturingStderr(async () => printSkippedBanner());
    expect(banner.stderr).to.match(/engines skipped[\s\S]*SKIPPED: redis could not start: redis-server not found/);
  });

  it('throws the reason instead when SPOOR_REQUIRE_INFRA=1', async function () {
    process.env.SPOOR_REQUIRE_INFRA = '1';
    const engine = fakeEngine('kafka', () => Promise.reject(new Error('java not found')));
    const error = await engineUrl(engine).then(
      () => null,
      (caught: unknown) => caught,
    );
    expect(error).to.be.instanceOf(Error);
    expect((error as Error).message).to.equal('kafka could not start: java not found');
  });

  it('starts once for concurrent callers and stops what it started', async function () {
    let starts = 0;
    let stops = 0;
    const engine = fakeEngine('clickhouse', async () => {
      starts += 1;
      await new Promise((resolve) => setTimeout(resolve, 20));
      return { url: 'http://127.0.0.1:1', stop: async () => void (stops += 1) };
    });
    const urls = await Promise.all([engineUrl(engine), engineUrl(engine), engineUrl(engine)]);
    expect(urls).to.deep.equal(['http://127.0.0.1:1', 'http://127.0.0.1:1', 'http://127.0.0.1:1']);
    expect(starts).to.equal(1);
    await stopAllEngines();
    expect(stops).to.equal(1);
  });

  it('uses the environment variable without starting anything', async function () {
    let starts = 0;
    const engine: EngineDefinition = {
      ...fakeEngine('redis', async () => {
        starts += 1;
        return { url: 'unused', stop: async () => undefined };
      }),
      envVar: 'SPOOR_TESTKIT_GIVEN_URL',
    };
    process.env.SPOOR_TESTKIT_GIVEN_URL = 'redis://elsewhere:6379';
    try {
      expect(await engineUrl(engine)).to.equal('redis://elsewhere:6379');
      expect(starts).to.equal(0);
    } finally {
      delete process.env.SPOOR_TESTKIT_GIVEN_URL;
    }
  });

  it('starts nothing with SPOOR_TEST_ENGINES=none (npm run test:unit)', async function () {
    delete process.env.SPOOR_REQUIRE_INFRA;
    process.env.SPOOR_TEST_ENGINES = 'none';
    let starts = 0;
    const engine = fakeEngine('kafka', async () => {
      starts += 1;
      return { url: 'unused', stop: async () => undefined };
    });
    const { result, stderr } = await capturingStderr(() => engineUrl(engine));
    expect(result).to.equal(null);
    expect(starts).to.equal(0);
    expect(stderr).to.equal('');
    // The run's end lists it among what was left out (printSkippedBanner), never as a failure to start.
    const banner = await capturingStderr(async () => printSkippedBanner());
    expect(banner.stderr).to.not.contain('could not start');
    process.env.SPOOR_REQUIRE_INFRA = '1';
    expect(() => engineUrl(engine)).to.throw(/contradict/);
  });
});
