// Command-line flags of a benchmark: one parse (usage on a bad flag, --help prints it and exits)
// and one positive-integer reader, for every bench's options module.
import { parseArgs } from 'node:util';

export class UsageError extends Error {}

/** Parses `names` as string flags (plus --help) strictly; a bad flag is a UsageError carrying `usage`. */
export function parseFlags<N extends string>(
  argv: string[],
  names: readonly N[],
  usage: string,
): Partial<Record<N, string>> {
  let values: Record<string, string | boolean | undefined>;
  try {
    const options = Object.fromEntries([
      ...names.map((n) => [n, { type: 'string' as const }]),
      ['help', { type: 'boolean' as const }],
    ]);
    values = parseArgs({ args: argv, options, strict: true }).values as Record<string, string | boolean | undefined>;
  } catch (err) {
    throw new UsageError(`${(err as Error).message}\n${usage}`);
  }
  if (values['help']) {
    process.stdout.write(`${usage}\n`);
    process.exit(0);
  }
  return values as Partial<Record<N, string>>;
}

/** A flag's value as a positive integer, or a UsageError naming the flag. */
export function positiveInt(name: string, raw: string, usage: string): number {
  if (!/^\d+$/.test(raw) || Number(raw) < 1)
    throw new UsageError(`${name}: expected a positive integer, got ${JSON.stringify(raw)}\n${usage}`);
  return Number(raw);
}
