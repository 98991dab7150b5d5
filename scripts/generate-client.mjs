// Regenerates libs/client/src/api-types.ts after an operation changed (run after `npm run build`).
// A test fails when the committed file differs from what this produces (CONVENTIONS.md).
import { writeFileSync } from 'node:fs';
import { renderClientTypes } from './render-client-types.mjs';

const file = new URL('../libs/client/src/api-types.ts', import.meta.url);
writeFileSync(file, await renderClientTypes());
console.log(`wrote ${file.pathname}`);
