export { loadConfig, ConfigError, type Config } from './load-config.js';
export { SERVICE_NAMES, type ServiceName } from './config-schema.js';
