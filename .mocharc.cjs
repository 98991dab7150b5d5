// mocha merges a config's `spec` with the files named on the command line, so naming one file
// ran the whole suite as well. The default spec applies only when no test file is named:
// `npx mocha dist/test/e2e/pipeline.test.js` runs that file alone; `npm test` runs everything.
const named = process.argv.slice(2).some((arg) => !arg.startsWith('-') && /\.(c|m)?js$|\*/.test(arg));

module.exports = {
  ...(named
    ? {}
    : {
        spec: [
          'libs/*/dist/test/**/*.test.js',
          'services/*/dist/test/**/*.test.js',
          'apps/*/dist/test/**/*.test.js',
          'dist/test/**/*.test.js',
        ],
      }),
  require: ['libs/testkit/dist/src/mocha-root-hooks.js'],
  timeout: 30000,
  exit: false,
  reporter: 'spec',
};
