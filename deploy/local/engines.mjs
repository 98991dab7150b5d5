#!/usr/bin/env node
// Starts the test engines by hand, the same way the tests do (see README.md beside this file).
//
//   node deploy/local/engines.mjs up        start Kafka, ClickHouse (chDB) and Redis; print
//                                           `export SPOOR_…=` lines; stop them on Ctrl-C
//   node deploy/local/engines.mjs prepare   only fetch what the local runners need (Kafka jars,
//                                           chDB venv) so the first test run does not wait
//
// Needs the testkit built: `npx tsc -b libs/testkit` (or `npm run build`).

const usage = 'usage: node deploy/local/engines.mjs up|prepare';

async function loadTestkit() {
  try {
    return await import('../../libs/testkit/dist/src/index.js');
  } catch (error) {
    console.error(`cannot load the testkit (${error.message}); build it first: npx tsc -b libs/testkit`);
    process.exit(2);
  }
}

async function up(testkit) {
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    console.error('stopping engines…');
    await testkit.stopAllEngines();
    process.exit(0);
  };
  // Registered before any engine starts, so the testkit leaves the shutdown to us.
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  const keepAlive = setInterval(() => undefined, 1 << 30); // engines do not hold the loop open

  const [kafka, clickhouse, redis] = await Promise.all([
    testkit.kafkaBrokers(),
    testkit.clickhouseUrl(),
    testkit.redisUrl(),
  ]);
  const started = [
    ['SPOOR_KAFKA_BROKERS', kafka],
    ['SPOOR_CLICKHOUSE_URL', clickhouse],
    ['SPOOR_REDIS_URL', redis],
  ];
  for (const [name, value] of started) {
    if (value !== null) console.log(`export ${name}=${value}`);
  }
  if (started.every(([, value]) => value === null)) {
    clearInterval(keepAlive);
    await stop();
  }
  console.error('engines running; paste the export lines into another shell, Ctrl-C here to stop them');
}

async function prepare(testkit) {
  const started = Date.now();
  await testkit.prepareLocalEngines();
  console.error(`local engine caches ready (${((Date.now() - started) / 1000).toFixed(1)} s)`);
}

const command = process.argv[2];
if (command === 'up') {
  await up(await loadTestkit());
} else if (command === 'prepare') {
  await prepare(await loadTestkit());
} else {
  console.error(usage);
  process.exit(2);
}
