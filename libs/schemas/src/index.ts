export * from './zod.js';
export * from './events.js';
export * from './sessions.js';
export * from './projects.js';
export * from './origin.js';
