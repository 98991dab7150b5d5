import { tlsFailureOf } from '@spoor/config';
/** PEM text for a rediss:// connection (SPOOR_REDIS_TLS_*_FILE); no `ca`: the system's CAs. */
export interface RedisTls {
  ca?: string;
  cert?: string;
  key?: string;
}

/** The URL without its password, for an error message. */
const shown = (url: string) => url.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@');

/**
 * A failed first connection as an error naming the setting to fix (issue 46): an untrusted
 * certificate, a TLS handshake the server ended, or a server that does not speak TLS.
 */
export function explainRedisFailure(err: unknown, url: string): Error {
  const { code = '', message = String(err) } = err as NodeJS.ErrnoException;
  const at = `Redis at ${shown(url)}`;
  const failure = tlsFailureOf(code, message);
  if (failure === 'untrusted') {
    return new Error(
      `${at}: its certificate is not trusted: ${message} [${code}] (SPOOR_REDIS_TLS_CA_FILE / SPOOR_REDIS_URL)`,
      { cause: err },
    );
  }
  if (failure === 'handshake') {
    return new Error(
      `${at}: the TLS handshake failed: ${message.split('\n')[0]}; a server that wants a client certificate needs one it trusts, and a rediss:// URL a TLS port (SPOOR_REDIS_URL / SPOOR_REDIS_TLS_CERT_FILE / SPOOR_REDIS_TLS_KEY_FILE)`,
      { cause: err },
    );
  }
  return new Error(`${at}: could not connect: ${message} (SPOOR_REDIS_URL)`, { cause: err });
}
