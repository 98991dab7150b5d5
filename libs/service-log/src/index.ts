// A small structured logger: one JSON object per line on stderr. Enough for `docker logs` and
// jq; no dependency needed for it.
export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';
const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 99 };

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  child(name: string): Logger;
}

export function createLogger(
  name: string,
  level: LogLevel = 'info',
  write: (line: string) => void = (l) => process.stderr.write(l),
): Logger {
  const threshold = RANK[level];
  const emit = (lvl: Exclude<LogLevel, 'silent'>, msg: string, fields?: Record<string, unknown>) => {
    if (RANK[lvl] < threshold) return;
    const entry: Record<string, unknown> = { time: new Date().toISOString(), level: lvl, name, msg, ...fields };
    if (fields?.['err'] instanceof Error) {
      const err = fields['err'];
      entry['err'] = { message: err.message, name: err.name, stack: err.stack };
    }
    write(serialise(entry) + '\n');
  };
  return {
    debug: (m, f) => emit('debug', m, f),
    info: (m, f) => emit('info', m, f),
    warn: (m, f) => emit('warn', m, f),
    error: (m, f) => emit('error', m, f),
    child: (child) => createLogger(`${name}.${child}`, level, write),
  };
}

/** A log line never throws: fields that cannot be serialised (too deep, cyclic, BigInt) are named, not written. */
function serialise(entry: Record<string, unknown>): string {
  try {
    return JSON.stringify(entry);
  } catch (err) {
    const { time, level, name, msg } = entry;
    return JSON.stringify({
      time,
      level,
      name,
      msg,
      unserialisable_fields: Object.keys(entry).filter((k) => !['time', 'level', 'name', 'msg'].includes(k)),
      why: (err as Error).message,
    });
  }
}
