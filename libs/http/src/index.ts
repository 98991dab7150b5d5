export * from './http-errors.js';
export * from './zod-validation.js';
export { jsonBody } from './body-parser.js';
export { corsMiddleware, corsHeaders, ALLOWED_HEADERS, ALLOWED_METHODS } from './cors-middleware.js';
export { createHttpApp, type HttpAppOptions } from './create-http-app.js';
export { listen, type RunningServer } from './listen.js';
export { onServerClosing } from './server-closing.js';
export { FastLane, type FastAnswer, type FastHandler, type FastStreamHandler } from './fast-lane.js';
