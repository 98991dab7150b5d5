import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { Resolver } from 'node:dns/promises';
import { userInfo } from 'node:os';
import { delimiter, join } from 'node:path';
import { engineUrl, type EngineDefinition, type EngineName } from '../engine-registry.js';
import type { StartedEngine } from '../started-engine.js';
import { makeTempDir } from '../temp-dir-registry.js';
import { ManagedProcess } from './managed-process.js';
import { freePort } from './port-allocator.js';
import { pollUntil } from './readiness-poller.js';

/**
 * One TXT record. A string is one character-string; an array is one record made of several
 * (RFC 1035 §3.3.14: each at most 255 bytes), which resolvers hand back as chunks.
 */
export interface TxtRecord {
  name: string;
  value: string | string[];
}

export interface DnsServer {
  /** `127.0.0.1:<port>`, the form SPOOR_DNS_SERVER and `Resolver.setServers` take. */
  server: string;
  stop(): Promise<void>;
}

/** Answered by every server this runner starts; readiness asks for it. */
const READY_NAME = '_ready.spoor-testkit.invalid';
const ATTEMPTS = 3;

function findDnsmasq(): string {
  // /usr/sbin is searched even when PATH leaves it out (non-root shells, CI).
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/sbin', '/usr/bin', '/usr/local/sbin'];
  for (const dir of dirs) {
    if (dir !== '' && existsSync(join(dir, 'dnsmasq'))) return join(dir, 'dnsmasq');
  }
  throw new Error('dnsmasq not found on PATH (Debian: apt-get install dnsmasq-base)');
}

/**
 * dnsmasq splits a --txt-record argument at every comma and keeps quotes literally; only its
 * config-file reader understands quoted strings (with \" and \\ escapes), so the records go
 * into a file.
 */
function configLine(record: TxtRecord): string {
  const chunks = typeof record.value === 'string' ? [record.value] : record.value;
  if (/[\s,]/.test(record.name) || record.name === '')
    throw new Error(`not a DNS name: ${JSON.stringify(record.name)}`);
  const quoted = chunks.map((chunk) => {
    if (Buffer.byteLength(chunk) > 255) throw new Error(`a TXT chunk holds at most 255 bytes: ${chunk.slice(0, 40)}…`);
    if (/[\r\n\0]/.test(chunk)) throw new Error('a TXT chunk here cannot hold CR, LF or NUL');
    return `"${chunk.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`;
  });
  return `txt-record=${record.name},${quoted.join(',')}`;
}

async function answersTxt(server: string): Promise<boolean> {
  const resolver = new Resolver({ timeout: 500, tries: 1 });
  resolver.setServers([server]);
  const records = await resolver.resolveTxt(READY_NAME);
  return records.length > 0;
}

async function startOnce(binary: string, dir: string, attempt: number): Promise<DnsServer> {
  const port = await freePort(); // free for TCP a moment ago; dnsmasq binds UDP and TCP on it
  const server = `127.0.0.1:${port}`;
  const dnsmasq = ManagedProcess.start({
    name: 'dnsmasq',
    command: binary,
    args: [
      '--keep-in-foreground',
      '--log-facility=-',
      '--log-queries',
      `--conf-file=${join(dir, 'dnsmasq.conf')}`,
      '--pid-file', // no argument: no pid file
      '--no-resolv',
      '--no-hosts',
      '--no-poll',
      '--local=/#/', // every name is local: NXDOMAIN unless configured
      '--listen-address=127.0.0.1',
      '--bind-interfaces',
      `--port=${port}`,
      `--user=${userInfo().username}`, // stays who we are; Debian's default user "dnsmasq" may not exist
    ],
    logFile: join(dir, `dnsmasq-${attempt}.log`),
    stopGraceMs: 5_000,
  });
  try {
    await pollUntil(`dnsmasq on ${server}`, () => answersTxt(server), {
      timeoutMs: 15_000,
      intervalMs: 50,
      abortReason: () => dnsmasq.exitReason(),
    });
  } catch (error) {
    const failure = await dnsmasq.failure((error as Error).message);
    await dnsmasq.stop();
    throw failure;
  }
  return { server, stop: () => dnsmasq.stop() };
}

/**
 * Debian's dnsmasq on a free loopback port, serving exactly `txtRecords` (several records of
 * one name allowed) and NXDOMAIN for every other name; no upstream, no /etc/hosts, no pid
 * file. Ready once a TXT query answers. Throws when dnsmasq is missing or will not start;
 * {@link dnsServer} is the registry-aware entry the tests use.
 */
export async function startDnsServer(txtRecords: TxtRecord[]): Promise<DnsServer> {
  const binary = findDnsmasq();
  const dir = await makeTempDir('dnsmasq');
  const lines = [...txtRecords, { name: READY_NAME, value: 'ok' }].map(configLine);
  await writeFile(join(dir, 'dnsmasq.conf'), `${lines.join('\n')}\n`);
  let lastError: unknown;
  // The port can be taken between freePort() and dnsmasq's bind (for UDP it was never checked).
  for (let attempt = 1; attempt <= ATTEMPTS; attempt += 1) {
    try {
      return await startOnce(binary, dir, attempt);
    } catch (error) {
      lastError = error;
    }
  }
  throw lastError;
}

let started = 0;

/**
 * A DNS server answering `txtRecords`, or null (with a loud SKIPPED: line) when dnsmasq cannot
 * start; SPOOR_REQUIRE_INFRA=1 turns that into a throw. Each call starts its own server.
 * It goes through the engine registry, so stopAllEngines stops whatever `stop()` was not
 * called for. The registry keys engines by name and knows only its three shared engines, so
 * every server is registered under a name of its own (`dnsmasq-<n>`, cast to EngineName) and
 * with no override variable: the records are the caller's, no outside server could serve them.
 */
export async function dnsServer(txtRecords: TxtRecord[]): Promise<DnsServer | null> {
  let handle: DnsServer | undefined;
  const start = async (): Promise<StartedEngine> => {
    handle = await startDnsServer(txtRecords);
    return { url: handle.server, stop: handle.stop };
  };
  started += 1;
  const definition: EngineDefinition = {
    name: `dnsmasq-${started}` as EngineName,
    envVar: '',
    startLocal: start,
    startContainer: start, // no image: dnsmasq runs on the host even where Docker answers
  };
  const server = await engineUrl(definition);
  return server === null || handle === undefined ? null : handle;
}
