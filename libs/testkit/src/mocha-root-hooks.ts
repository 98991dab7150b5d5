import { stopAllEngines } from "./engines.js"; export const mochaHooks = { async afterAll() { await stopAllEngines(); } };
