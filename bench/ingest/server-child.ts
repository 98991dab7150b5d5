import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';

/**
 * The node flags of `npm start`, the Dockerfile and the Kubernetes manifests: V8's young
 * generation in 4 MiB semi-spaces (the default grows to 16 MiB each, and under a burst of new
 * connections it did, +24 MiB of RSS kept for 2,000 live streams; docs/analytics.md, Live view).
 */
const SERVER_NODE_FLAGS = ['--max-semi-space-size=4'];

/** A port free on loopback right now (the child binds it a moment later). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * A server under test, run as a Node child process. Its stderr is passed through, and the
 * lines that Spoor's logger marks as errors are counted: errors under load are a finding.
 */
export class ServerChild {
  errorLines = 0;
  readonly firstErrors: string[] = [];
  private readonly child: ChildProcess;
  private readonly exited: Promise<number | null>;

  constructor(
    readonly label: string,
    script: string,
    args: string[],
    env: Record<string, string>,
  ) {
    // The server's node runs as `npm start` and the image run it (SERVER_NODE_FLAGS); BENCH_NODE_ARGS
    // (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof") goes after them: profiles of a run, other flags.
    const nodeArgs = [...SERVER_NODE_FLAGS, ...(process.env['BENCH_NODE_ARGS'] ?? '').split(' ').filter(Boolean)];
    this.child = spawn(process.execPath, [...nodeArgs, script, ...args], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    this.exited = new Promise((resolve) => this.child.once('exit', (code) => resolve(code)));
    let pending = '';
    this.child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      const lines = (pending + chunk).split('\n');
      pending = lines.pop()!;
      for (const line of lines) this.onStderrLine(line);
    });
  }

  get pid(): number {
    return this.child.pid!;
  }

  /** The signal that ended the child (code null), or null while it runs or after an exit of its own. */
  get exitSignal(): NodeJS.Signals | null {
    return this.child.signalCode;
  }

  /** Polls `url` until it answers 2xx; fails early if the child dies. */
  async waitUntilServing(url: string, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (this.child.exitCode !== null)
        throw new Error(`${this.label} exited with ${this.child.exitCode} before serving`);
      const ok = await fetch(url).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`${this.label} did not serve ${url} within ${timeoutMs} ms`);
  }

  /** SIGTERM, and SIGKILL if it has not exited after `graceMs`. Resolves with the exit code. */
  async stop(graceMs = 20_000): Promise<number | null> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGTERM');
    const timer = setTimeout(() => {
      process.stderr.write(`${this.label} ignored SIGTERM for ${graceMs} ms: SIGKILL\n`);
      this.child.kill('SIGKILL');
    }, graceMs);
    try {
      return await this.exited;
    } finally {
      clearTimeout(timer);
    }
  }

  private onStderrLine(line: string): void {
    if (line.trim() === '') return;
    process.stderr.write(`[${this.label}] ${line}\n`);
    if (!line.includes('"level":"error"')) return;
    this.errorLines++;
    if (this.firstErrors.length < 5) this.firstErrors.push(line.slice(0, 500));
  }
}
