// `npm run test:unit` (issue 20, item 5): every library's and service's own tests, with no
// engine. SPOOR_TEST_ENGINES=none makes libs/testkit start nothing — no Kafka, ClickHouse/chDB,
// Redis, dnsmasq or Chromium — and skip the tests that need one; the two files that run an
// in-process SMTP server or OIDC provider are left out too. The cross-service tests in test/
// (end to end in both modes, crash recovery, the CLI, the logger and the dashboard in Chromium)
// run only in `npm test`, the whole suite.
if (['1', 'true'].includes(process.env.SPOOR_REQUIRE_INFRA ?? '')) {
  throw new Error('npm run test:unit starts no engine: unset SPOOR_REQUIRE_INFRA, or run npm test');
}
process.env.SPOOR_TEST_ENGINES = 'none';
const base = require('./.mocharc.cjs');

// As in .mocharc.cjs: a file named on the command line runs alone.
const named = process.argv.slice(2).some((arg) => !arg.startsWith('-') && /\.(c|m)?js$|\*/.test(arg));

module.exports = {
  ...base,
  ...(named ? {} : { spec: ['libs/*/dist/test/**/*.test.js', 'services/*/dist/test/**/*.test.js', 'apps/*/dist/test/**/*.test.js'] }),
  ignore: ['libs/notify/dist/test/email-sender.test.js', 'libs/auth/dist/test/external-issuer.test.js'],
};
