import { InvalidArgumentError, type Command } from 'commander';
import type { CliSession } from './cli-session.js';

/** Makes the session of a command from its options (global ones included). */
export type SessionFactory = (command: Command) => CliSession;

/**
 * A commander action that gets the session first, then the command's arguments and options as
 * commander passes them (positionals…, options).
 */
export function act<A extends unknown[]>(make: SessionFactory, fn: (session: CliSession, ...args: A) => Promise<void>) {
  return async (...argv: unknown[]): Promise<void> => {
    const command = argv[argv.length - 1] as Command;
    await fn(make(command), ...(argv.slice(0, -1) as A));
  };
}

/** Parses an integer option, refusing anything else with a usage error. */
export function intOption(name: string) {
  return (value: string): number => {
    if (!/^\d+$/.test(value))
      throw new InvalidArgumentError(`${name} must be a whole number, got ${JSON.stringify(value)}`);
    return Number(value);
  };
}

/** A comma-separated list on the command line (`--sessions a,b`); undefined when not given. */
export const commaList = (v: string | undefined): string[] | undefined =>
  v
    ? v
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean)
    : undefined;
