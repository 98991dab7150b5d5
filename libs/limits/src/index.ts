export { clientKey, LIMIT_NAMES, RateLimits, type LimitName } from './rate-limits.js';
export { LoginGuard } from './login-guard.js';
