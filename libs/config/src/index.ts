export {
  loadConfig,
  ConfigError,
  redactConfigValue,
  type Config,
  type RateLimitConfig,
  type ChannelCaps,
  type ExportCaps,
} from './load-config.js';
export { SERVICE_NAMES, type ServiceName } from './config-schema.js';
export type { ConnectionSecurity, KafkaSasl, SaslMechanism, TlsFiles } from './connection-security.js';
export { tlsFailureOf } from './tls-failure.js';
