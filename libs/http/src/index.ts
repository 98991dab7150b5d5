export * from './http-errors.js';
export * from './zod-validation.js';
export { jsonBody } from './body-parser.js';
export { corsMiddleware, ALLOWED_HEADERS, ALLOWED_METHODS } from './cors-middleware.js';
export { createHttpApp, type HttpAppOptions } from './create-http-app.js';
export { listen, type RunningServer } from './listen.js';
export { onServerClosing } from './server-closing.js';
export { FastLane, type FastAnswer, type FastHandler } from './fast-lane.js';
