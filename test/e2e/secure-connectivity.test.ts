import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { loadConfig } from '@spoor/config';
import { serviceModules } from '@spoor/host';
import { createLogger } from '@spoor/service-log';
import { runServices, type RunningProcess } from '@spoor/runtime';
import { makeTempDir, requireEngine, secureKafka, tlsClickHouse, tlsRedis, type SecureKafka } from '@spoor/testkit';
import { post, registerProject, waitFor } from '../support/spoor-harness.js';

const ORIGIN = 'https://secure.example';
const HOST_MAIN = new URL('../../../services/host/dist/src/main.js', import.meta.url).pathname;

// Issue 46: Spoor on secured engines, configured as an operator would — variables and mounted
// files: Kafka over SASL_SSL (SCRAM-SHA-256, the password from a file), ClickHouse over https
// with a private CA and a client certificate, Redis over rediss://. One event goes from ingest to
// the store through all three; then a process with a wrong password exits at start, non-zero,
// with the setting named, instead of retrying.
describe('Secure connections: Spoor on Kafka SASL_SSL, ClickHouse https, Redis TLS', function () {
  this.timeout(180_000);
  let kafka: SecureKafka;
  let env: Record<string, string>;
  let dir: string;
  const processes: RunningProcess[] = [];

  before(async function () {
    const started = await secureKafka();
    requireEngine(this, started?.url ?? null, 'kafka');
    kafka = started!;
    const [redis, clickhouse] = await Promise.all([tlsRedis(kafka.pki), tlsClickHouse(kafka.pki)]);
    requireEngine(this, redis?.url ?? null, 'redis');
    requireEngine(this, clickhouse?.url ?? null, 'clickhouse');
    dir = await makeTempDir('secure-e2e');
    const passwordFile = join(dir, 'kafka-password');
    await writeFile(passwordFile, `${kafka.users['scram-sha-256'].password}\n`, { mode: 0o600 });
    const run = randomUUID().replace(/-/g, '').slice(0, 10);
    env = {
      SPOOR_DATA_DIR: dir,
      SPOOR_PORT: '0',
      SPOOR_LOG_LEVEL: 'error',
      SPOOR_TOPIC_PREFIX: `t${run}.`,
      SPOOR_KAFKA_BROKERS: kafka.saslSsl,
      SPOOR_KAFKA_PARTITIONS: '1',
      SPOOR_KAFKA_REPLICATION_FACTOR: '1',
      SPOOR_KAFKA_TLS: 'true',
      SPOOR_KAFKA_TLS_CA_FILE: kafka.pki.caFile,
      SPOOR_KAFKA_SASL_MECHANISM: 'scram-sha-256',
      SPOOR_KAFKA_SASL_USERNAME: kafka.users['scram-sha-256'].username,
      SPOOR_KAFKA_SASL_PASSWORD_FILE: passwordFile,
      SPOOR_CLICKHOUSE_URL: clickhouse!.url,
      SPOOR_CLICKHOUSE_DATABASE: `spoor_${run}`,
      SPOOR_CLICKHOUSE_TLS_CA_FILE: kafka.pki.caFile,
      SPOOR_CLICKHOUSE_TLS_CERT_FILE: kafka.pki.client.certFile,
      SPOOR_CLICKHOUSE_TLS_KEY_FILE: kafka.pki.client.keyFile,
      SPOOR_REDIS_URL: redis!.url,
      SPOOR_REDIS_TLS_CA_FILE: kafka.pki.caFile,
    };
  });
  after(async () => {
    for (const p of processes.reverse()) await p.stop();
  });

  it('takes an event from ingest to the store through the three secured engines', async () => {
    const running = await runServices(loadConfig(env), serviceModules, createLogger('secure', 'error'));
    processes.push(running);
    expect([running.adapters.bus.kind, running.adapters.store.kind, running.adapters.kv.kind]).to.deep.equal([
      'kafka',
      'clickhouse',
      'redis',
    ]);
    const project = await registerProject(running.adapters.store, ORIGIN, 'secure/web');
    const res = await post(
      `${running.http!.url}/v1/event`,
      { project: 'secure/web', action: 'click', timestamp: Date.now(), session_id: `s-${randomUUID()}` },
      { origin: ORIGIN },
    );
    expect(res.status).to.equal(200);
    await waitFor(
      () => running.adapters.store.events.countEnriched(project.project_id),
      (n) => n === 1,
      60_000,
      'the event enriched and stored',
    );
  });

  it('exits at start, non-zero and within seconds, when Kafka refuses the password', async () => {
    const wrong = join(dir, 'wrong-password');
    await writeFile(wrong, 'not-the-password\n', { mode: 0o600 });
    const started = Date.now();
    const { code, output } = await runHost({ ...env, SPOOR_KAFKA_SASL_PASSWORD_FILE: wrong, SPOOR_SERVICES: 'ingest' });
    const took = Date.now() - started;
    const said = output.split('\n').find((l) => l.includes('SASL credentials'));
    process.stderr.write(`      (exited ${code} after ${took} ms: ${said})\n`);
    expect(code).to.not.equal(0);
    expect(output).to.match(/refused the SASL credentials.*SPOOR_KAFKA_SASL_PASSWORD_FILE/);
    expect(took).to.be.below(20_000);
  });

  it('exits at start when a configured file is missing, naming the variable', async () => {
    const { code, output } = await runHost({ ...env, SPOOR_REDIS_TLS_CA_FILE: join(dir, 'missing.pem') });
    expect(code).to.equal(2);
    expect(output).to.contain('SPOOR_REDIS_TLS_CA_FILE').and.contain('cannot read the file (ENOENT)');
  });
});

/** `npm start` as a child process with `env` alone (and PATH); killed if it outlives 60 s. */
function runHost(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [HOST_MAIN], {
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.once('error', reject);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}
