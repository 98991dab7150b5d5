// Build step: the dashboard (apps/dashboard). Its TypeScript is type-checked first (DOM lib,
// noEmit: it is not a project reference of the root `tsc -b`), then Vite bundles it into
// apps/dashboard/dist, which the gateway serves at / (services/gateway/src/dashboard-router.ts).
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { build } from 'vite';
import { printSizes } from './print-sizes.mjs';

const root = 'apps/dashboard';
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
try {
  execFileSync(process.execPath, [tsc, '-p', root], { stdio: 'inherit' });
} catch {
  console.error('dashboard: type errors (above)');
  process.exit(1);
}

await build({
  root,
  configFile: false,
  logLevel: 'warn',
  base: '/',
  build: { outDir: 'dist', emptyOutDir: true, target: 'es2022', sourcemap: false, reportCompressedSize: false },
});

const assets = join(root, 'dist', 'assets');
printSizes(
  'dashboard',
  readdirSync(assets).map((f) => join(assets, f)),
);
