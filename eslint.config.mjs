// ESLint (issue 20, item 4): the architecture rules the codebase keeps — no import cycles, no
// service importing another, the engines' driver packages only inside their adapters — checked
// on every source file. Formatting is Prettier's (.prettierrc.json), not ESLint's.
import tseslint from 'typescript-eslint';
import importX from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';

const SERVICES = ['ingest', 'enricher', 'sessionizer', 'classifier', 'gateway', 'worker'];
const DRIVERS = ['kafkajs', '@clickhouse/client', '@duckdb/node-api', 'ioredis'];

const driverRule = (allowed) => ({
  'no-restricted-imports': [
    'error',
    {
      paths: DRIVERS.filter((d) => !allowed.includes(d)).map((name) => ({
        name,
        message: 'Engine drivers live in their adapter (libs/bus, libs/store, libs/kv); use the port.',
      })),
    },
  ],
});

export default tseslint.config(
  {
    ignores: [
      '**/dist/**',
      '**/node_modules/**',
      '.cache/**',
      'test-artifacts/**',
      'bench/results/**',
      'libs/client/src/api-types.ts',
      'apps/dashboard/dist/**',
    ],
  },
  {
    files: ['**/*.ts', '**/*.mjs'],
    languageOptions: { parser: tseslint.parser, ecmaVersion: 'latest', sourceType: 'module' },
    plugins: { 'import-x': importX },
    settings: {
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
      'import-x/extensions': ['.ts', '.mjs', '.js'],
      'import-x/resolver-next': [
        createTypeScriptImportResolver({
          project: ['libs/*/tsconfig.json', 'services/*/tsconfig.json', 'apps/*/tsconfig.json', 'test/tsconfig.json'],
          noWarnOnMultipleProjects: true,
        }),
      ],
    },
    rules: {
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      ...driverRule([]),
    },
  },
  // The adapters, and the tests and tools that check engines by their own drivers.
  {
    files: [
      'libs/bus/**',
      'libs/store/**',
      'libs/kv/**',
      'libs/testkit/**',
      'libs/limits/**',
      '**/test/**',
      'test/**',
      'bench/**',
      'scripts/**',
      'deploy/**',
    ],
    rules: driverRule(DRIVERS),
  },
  // No service imports another: what two services share lives in libs/ (services/host composes them all).
  ...SERVICES.map((service) => ({
    files: [`services/${service}/**`],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            ...SERVICES.filter((s) => s !== service).map((s) => ({
              name: `@spoor/${s}`,
              message: 'No service imports another; move what both need into libs/.',
            })),
            ...DRIVERS.map((name) => ({
              name,
              message: 'Engine drivers live in their adapter (libs/bus, libs/store, libs/kv); use the port.',
            })),
          ],
          patterns: [
            { group: ['../../*/src/*', '../../../services/*'], message: "No service imports another service's files." },
          ],
        },
      ],
    },
  })),
);
