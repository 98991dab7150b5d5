// Build step: the browser logger (libs/logger) bundled with esbuild, minified, no dependencies:
// spoor.iife.js for the <script> tag (served at /logger.js) and spoor.mjs for `import`.
// Target ES2020: every browser since 2020 (Chrome 80, Firefox 74, Safari 14) runs it unchanged.
import { build } from 'esbuild';
import { gzipSync } from 'node:zlib';
import { readFileSync } from 'node:fs';

const dir = 'libs/logger';
const common = { bundle: true, minify: true, target: 'es2020', legalComments: 'none', logLevel: 'warning' };
await build({ ...common, entryPoints: [`${dir}/src/script-tag.ts`], format: 'iife', outfile: `${dir}/dist/spoor.iife.js` });
await build({ ...common, entryPoints: [`${dir}/src/index.ts`], format: 'esm', outfile: `${dir}/dist/spoor.mjs` });
const sizes = ['spoor.iife.js', 'spoor.mjs'].map((f) => {
  const code = readFileSync(`${dir}/dist/${f}`);
  return `${f} ${code.length} B, ${gzipSync(code, { level: 9 }).length} B gzipped`;
});
console.log(`logger: ${sizes.join('; ')}`);
