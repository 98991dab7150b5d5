export { loadConfig, ConfigError, redactConfigValue, type Config } from './load-config.js';
export { SERVICE_NAMES, type ServiceName } from './config-schema.js';
