// The ES module: `import * as spoor from 'https://spoor.example/logger.mjs'; spoor.init({…})`.
export { init, track, flush, optOut, optIn, optedOut } from './spoor-logger.js';
export type { SpoorConfig, SpoorOptions } from './logger-types.js';
