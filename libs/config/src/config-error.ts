/** A setting that is wrong, named with its value as it may be shown (secrets masked). */
export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    detail: string,
    value: string | undefined,
  ) {
    super(`Invalid configuration: ${variable}=${JSON.stringify(redactConfigValue(variable, value ?? ''))}: ${detail}`);
    this.name = 'ConfigError';
  }
}

/** Variables whose whole value is a secret. */
const SECRET_NAME = /PASSWORD|PASSWD|SECRET|TOKEN|KEY|SALT|CREDENTIAL/i;
/** Query parameters that carry secrets (`?password=…`, `&api_key=…`). */
const SECRET_PARAM = /([?&;](?:[^=&;]*(?:password|passwd|secret|token|key|auth)[^=&;]*)=)[^&;#\s]*/gi;
/** `scheme://user:password@` or `scheme://token@`: the userinfo of a URL. */
const USERINFO = /([a-z][a-z0-9+.-]*:\/\/)([^@/\s?#]*)@/gi;
/** A long unbroken run of key-like characters: an inline key or token. */
const TOKEN_LIKE = /[A-Za-z0-9_\-+/=]{32,}/g;

/**
 * A configuration value as it may appear in an error or a log (issue 13): a secret variable
 * entirely masked; otherwise URLs keep their user name but not their password, and secret-named
 * query parameters and long token-like runs are masked.
 */
export function redactConfigValue(variable: string, value: string): string {
  if (value === '') return value;
  // A *_FILE variable holds a path (SPOOR_KAFKA_TLS_KEY_FILE): the secret is in the file.
  if (SECRET_NAME.test(variable) && !variable.endsWith('_FILE')) return '***';
  return value
    .replace(
      USERINFO,
      (_m, scheme: string, info: string) =>
        `${scheme}${info.includes(':') ? `${info.slice(0, info.indexOf(':'))}:***` : '***'}@`,
    )
    .replace(SECRET_PARAM, '$1***')
    .replace(TOKEN_LIKE, '***');
}
