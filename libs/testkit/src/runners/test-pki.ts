import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { makeTempDir } from '../temp-dir-registry.js';
import { runToCompletion } from './one-shot-command.js';

/** One certificate and its key, as PEM files and as their text. */
export interface PemPair {
  certFile: string;
  keyFile: string;
  cert: string;
  key: string;
}

/**
 * A private CA with a server certificate for loopback (DNS:localhost, IP:127.0.0.1, IP:::1) and
 * a client certificate it signed, and a second CA nobody trusts, with a server certificate of
 * its own (issue 46: the engines' TLS tests). Made with the machine's openssl; P-256 keys, a
 * day's validity.
 */
export interface TestPki {
  dir: string;
  caFile: string;
  ca: string;
  server: PemPair;
  client: PemPair;
  /** Another CA: its file as a client's CA makes the server untrusted. */
  otherCaFile: string;
  /** A server certificate the other CA signed. */
  otherServer: PemPair;
  /** A server certificate the CA signed for another name (DNS:elsewhere.invalid): hostname checks. */
  wrongNameServer: PemPair;
}

const KEY_ARGS = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

/** Makes a fresh PKI under a temp dir (removed with the others by stopAllEngines). */
export async function makeTestPki(): Promise<TestPki> {
  const dir = await makeTempDir('pki');
  const logFile = join(dir, 'openssl.log');
  const openssl = (label: string, args: string[]) =>
    runToCompletion({ label: `openssl: ${label}`, command: 'openssl', args, logFile, timeoutMs: 30_000 });
  const path = (name: string) => join(dir, name);

  const makeCa = (name: string, subject: string) =>
    openssl(`${name} CA`, [
      'req',
      '-x509',
      ...KEY_ARGS,
      '-keyout',
      path(`${name}.key`),
      '-out',
      path(`${name}.pem`),
      '-days',
      '1',
      '-subj',
      subject,
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    ]);
  const makeLeaf = async (ca: string, name: string, cn: string, extensions: string): Promise<PemPair> => {
    await writeFile(path(`${name}.ext`), `${extensions}\n`);
    await openssl(`${name} request`, [
      'req',
      ...KEY_ARGS,
      '-keyout',
      path(`${name}.key`),
      '-out',
      path(`${name}.csr`),
      '-subj',
      `/CN=${cn}`,
    ]);
    await openssl(`${name} certificate`, [
      'x509',
      '-req',
      '-in',
      path(`${name}.csr`),
      '-CA',
      path(`${ca}.pem`),
      '-CAkey',
      path(`${ca}.key`),
      // A serial each, not -CAcreateserial: leaves of one CA are signed in parallel.
      '-set_serial',
      `0x${randomBytes(8).toString('hex')}`,
      '-out',
      path(`${name}.pem`),
      '-days',
      '1',
      '-extfile',
      path(`${name}.ext`),
    ]);
    const [certFile, keyFile] = [path(`${name}.pem`), path(`${name}.key`)];
    return { certFile, keyFile, cert: await readFile(certFile, 'utf8'), key: await readFile(keyFile, 'utf8') };
  };

  const serverExt = 'subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1\nextendedKeyUsage=serverAuth';
  await Promise.all([makeCa('ca', '/CN=Spoor test CA'), makeCa('other-ca', '/CN=Spoor untrusted CA')]);
  const [server, client, otherServer, wrongNameServer] = await Promise.all([
    makeLeaf('ca', 'server', 'localhost', serverExt),
    makeLeaf('ca', 'client', 'spoor-client', 'extendedKeyUsage=clientAuth'),
    makeLeaf('other-ca', 'other-server', 'localhost', serverExt),
    makeLeaf(
      'ca',
      'wrong-name-server',
      'elsewhere.invalid',
      'subjectAltName=DNS:elsewhere.invalid\nextendedKeyUsage=serverAuth',
    ),
  ]);
  return {
    dir,
    caFile: path('ca.pem'),
    ca: await readFile(path('ca.pem'), 'utf8'),
    server,
    client,
    otherCaFile: path('other-ca.pem'),
    otherServer,
    wrongNameServer,
  };
}
