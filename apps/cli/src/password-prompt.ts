import type { CliStreams } from './cli-session.js';

/**
 * Reads a password without echoing it when stdin is a terminal (raw mode, one key at a time:
 * Enter ends, Backspace erases, Ctrl-C aborts). From a pipe it reads the first line, so
 * `echo pw | spoor login me@x` works as `docker login --password-stdin` does.
 */
export function readPassword(streams: CliStreams, prompt: string): Promise<string> {
  const { stdin, stderr } = streams;
  if (!stdin.isTTY || !stdin.setRawMode) return firstLine(stdin);
  stderr.write(prompt);
  return new Promise((resolve, reject) => {
    let typed = '';
    const done = (err: Error | null) => {
      stdin.setRawMode!(false);
      stdin.removeListener('data', onData);
      stdin.pause();
      stderr.write('\n');
      if (err) reject(err);
      else resolve(typed);
    };
    const onData = (chunk: Buffer | string) => {
      for (const ch of chunk.toString('utf8')) {
        if (ch === '\r' || ch === '\n') return done(null);
        if (ch === '\u0003') return done(new Error('interrupted'));
        if (ch === '\u007f' || ch === '\b') typed = typed.slice(0, -1);
        else if (ch >= ' ') typed += ch;
      }
    };
    stdin.setRawMode!(true);
    stdin.resume();
    stdin.on('data', onData);
  });
}

function firstLine(stdin: NodeJS.ReadableStream): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    const finish = () => {
      stdin.removeListener('data', onData);
      stdin.pause();
      resolve(text.split(/\r?\n/)[0] ?? '');
    };
    const onData = (chunk: Buffer | string) => {
      text += chunk.toString();
      if (text.includes('\n')) finish();
    };
    stdin.on('data', onData);
    stdin.once('end', finish);
    stdin.resume();
  });
}
