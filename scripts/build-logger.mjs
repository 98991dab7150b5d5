// Build step: the browser logger (libs/logger) bundled with esbuild, minified, no dependencies:
// spoor.iife.js for the <script> tag (served at /logger.js) and spoor.mjs for `import`.
// Target ES2020: every browser since 2020 (Chrome 80, Firefox 74, Safari 14) runs it unchanged.
import { build } from 'esbuild';
import { printSizes } from './print-sizes.mjs';

const dir = 'libs/logger';
const common = { bundle: true, minify: true, target: 'es2020', legalComments: 'none', logLevel: 'warning' };
await build({
  ...common,
  entryPoints: [`${dir}/src/script-tag.ts`],
  format: 'iife',
  outfile: `${dir}/dist/spoor.iife.js`,
});
await build({ ...common, entryPoints: [`${dir}/src/index.ts`], format: 'esm', outfile: `${dir}/dist/spoor.mjs` });
printSizes('logger', [`${dir}/dist/spoor.iife.js`, `${dir}/dist/spoor.mjs`]);
