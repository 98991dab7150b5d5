import { loadConfig, ConfigError, type Config, type ServiceName } from '@spoor/config';
import { createLogger, type Logger } from '@spoor/logger';
import { createHttpApp, listen, type RunningServer } from '@spoor/http';
import { openAdapters, type Adapters } from './adapters.js';
import { healthRouter } from './health-router.js';
import type { RunningService, ServiceModule } from './service-module.js';

export interface RunningProcess {
  adapters: Adapters;
  http: RunningServer | null;
  services: RunningService[];
  stop(): Promise<void>;
}

/**
 * Starts the configured services in this process on shared adapters, and one HTTP server when
 * any of them serves routes. Used by the all-in-one host and by each service's own main.
 */
export async function runServices(config: Config, modules: ServiceModule[], logger: Logger, clock: () => number = Date.now): Promise<RunningProcess> {
  const selected = modules.filter((m) => config.services.includes(m.name));
  const adapters = await openAdapters(config, logger);
  const services: RunningService[] = [];
  for (const m of selected) services.push(await m.start({ config, logger: logger.child(m.name), adapters, clock }));
  const routers = services.flatMap((s) => (s.router ? [s.router] : []));
  if (routers.length) routers.unshift(healthRouter(adapters, services, clock));
  const http = routers.length
    ? await listen(createHttpApp({ logger: logger.child('http'), trustProxy: config.trustProxy, mount: (app) => routers.forEach((r) => app.use(r)) }), config.port, config.host)
    : null;
  logger.info('spoor started', { services: selected.map((m) => m.name), url: http?.url ?? null });
  let stopping: Promise<void> | null = null;
  return {
    adapters,
    http,
    services,
    stop: () =>
      (stopping ??= (async () => {
        await http?.close();
        for (const s of [...services].reverse()) await s.stop();
        await adapters.close();
      })()),
  };
}

/** A process entry point: reads the environment, starts, and stops cleanly on SIGINT/SIGTERM. */
export async function main(modules: ServiceModule[], only?: ServiceName[]): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`spoor: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  if (only) config = { ...config, services: only };
  const logger = createLogger('spoor', config.logLevel);
  const running = await runServices(config, modules, logger);
  const shutdown = (signal: string) => {
    logger.info('stopping', { signal });
    running.stop().then(
      () => process.exit(0),
      (err) => {
        logger.error('unclean stop', { err });
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', () => shutdown('SIGINT'));
  process.once('SIGTERM', () => shutdown('SIGTERM'));
}
