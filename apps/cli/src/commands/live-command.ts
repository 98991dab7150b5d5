// `spoor live` (issue 18; docs/cli.md): the live view from GET /v1/live. On a terminal the view
// is redrawn in place at each snapshot; piped or with --json, one JSON line per snapshot
// (NDJSON), so `spoor live | jq` follows it. --once prints the first snapshot and exits.
import type { Command } from 'commander';
import { followLive, LiveStreamError } from '@spoor/client';
import { describeFailure } from '../api-result.js';
import { CliError } from '../cli-errors.js';
import type { CliSession } from '../cli-session.js';
import { act, type SessionFactory } from '../command-action.js';
import { describeLive } from './live-view-text.js';

/** Clear the screen and put the cursor top left: the next view replaces the last. */
const REDRAW = '\x1b[H\x1b[2J';

export function registerLiveCommand(program: Command, make: SessionFactory): void {
  program
    .command('live')
    .description(
      'the live view: visitors of the last 5 minutes, the pages they are on, the latest events (every 2 s; Ctrl-C stops)',
    )
    .option('--once', 'print one snapshot and exit')
    .action(act(make, async (s, o: { once?: boolean }) => follow(s, !!o.once)));
}

async function follow(s: CliSession, once: boolean): Promise<void> {
  const scope = await s.scope();
  const { baseUrl, token } = await s.credentials();
  const abort = new AbortController();
  const stop = () => abort.abort();
  // Ctrl-C ends the stream and the command with 0, the last view left on screen.
  process.once('SIGINT', stop);
  const terminal = !s.options.json && !!s.streams.stdout.isTTY;
  const write = (text: string) => void s.streams.stdout.write(text);
  try {
    await followLive({
      baseUrl,
      token,
      ...scope,
      signal: abort.signal,
      onSnapshot: (snap) => {
        if (once) {
          s.out.result(snap, () => describeLive(s.out, snap));
          return abort.abort();
        }
        write(terminal ? `${REDRAW}${describeLive(s.out, snap)}\n` : `${JSON.stringify(snap)}\n`);
      },
      onState: (state, waitMs) => {
        if (state === 'reconnecting')
          s.streams.stderr.write(`the stream dropped; reconnecting in ${Math.round(waitMs / 1000)} s\n`);
      },
    });
  } catch (err) {
    throw asCliError(err);
  } finally {
    process.off('SIGINT', stop);
  }
}

function asCliError(err: unknown): unknown {
  if (!(err instanceof LiveStreamError)) return err;
  const text = describeFailure(err.status, { detail: err.detail });
  if (err.status === 401)
    return new CliError(`the server refused your credentials (${text}); run \`spoor login <email>\` again`);
  return new CliError(text);
}
