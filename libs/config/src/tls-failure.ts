// What a TLS failure of an engine connection was (issue 46), told apart once for the three
// clients (libs/bus kafka-access.ts, libs/kv redis-connect-error.ts, libs/store
// clickhouse-connection.ts), each of which names its own settings in the error it raises.

/** Node's codes for a server certificate that does not verify (crypto/x509 and tls). */
const UNTRUSTED =
  /^(UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT(_LOCALLY)?|SELF_SIGNED_CERT_IN_CHAIN|DEPTH_ZERO_SELF_SIGNED_CERT|CERT_\w+|INVALID_CA|ERR_TLS_CERT_ALTNAME_INVALID)$/;

/**
 * `untrusted`: the server's certificate did not verify (CA, name, dates); `handshake`: the
 * handshake failed or the server ended it (no client certificate it trusts, a plaintext port);
 * null: not a TLS failure.
 */
export function tlsFailureOf(code: string, message: string): 'untrusted' | 'handshake' | null {
  if (UNTRUSTED.test(code)) return 'untrusted';
  if (code.startsWith('ERR_SSL_') || /before secure TLS connection was established/.test(message)) return 'handshake';
  return null;
}
