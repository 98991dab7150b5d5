import type { DropCounts } from '@spoor/schemas';
import type { ProcessMetrics } from './process-metrics.js';
import type { Router } from 'express';
import type { FastHandler, FastStreamHandler } from '@spoor/http';
import type { Config, ServiceName } from '@spoor/config';
import type { Logger } from '@spoor/service-log';
import type { Adapters } from './adapters.js';
import type { LocalHandoff } from './local-handoff.js';

export interface ServiceContext {
  config: Config;
  logger: Logger;
  adapters: Adapters;
  /** Milliseconds since the epoch; tests pass their own. */
  clock: () => number;
  /** SPOOR_PUBLIC_URL, else the URL this process' HTTP server is bound to (null: no HTTP). */
  publicUrl: string | null;
  /** Stage-to-stage calls inside this process (issue 14). */
  handoff: LocalHandoff;
  /**
   * True when `consumer` runs in this process and SPOOR_HANDOFF is `local`: a producer stage then
   * hands its output to `handoff.consumer(topic)` instead of publishing it.
   */
  handsOffTo(consumer: ServiceName): boolean;
  /** This process' measurements (/metrics); job runners report finished jobs here. */
  metrics: ProcessMetrics;
  /**
   * The latest lag of a consumer group this service does not run, read in the background by the
   * process' one lag sampler with the others (LagSampler.watch). Services on the HTTP thread only.
   */
  watchLag(target: { topic: string; group: string }): () => number;
}

export interface RunningService {
  /** HTTP routes this service serves, mounted on the process' one app. */
  router?: Router;
  /** Hot POST routes served beside express (libs/http FastLane), by exact path; the router should serve them too. */
  fastRoutes?: Array<{ path: string; handler: FastHandler; limitBytes: number }>;
  /** Long-lived GET and HEAD answers served beside express (FastLane.addStream), by exact path; the router should serve them too. */
  fastStreams?: Array<{ path: string; handler: FastStreamHandler }>;
  /** Figures for health reporting. */
  stats?: () => Record<string, number>;
  /** Events this service let go, by reason from the one catalogue (@spoor/schemas DROP_REASONS). */
  drops?: () => DropCounts;
  /** Topics and consumer groups this service consumes, for lag reporting. */
  consumes?: Array<{ topic: string; group: string }>;
  /** Stops consuming; the adapters are closed by the host afterwards. */
  stop(): Promise<void>;
}

/**
 * Stops services all at once, each logged with how long it took (`stopped`, info). Each waits for
 * its batches under way and its consumers' leave (a Kafka disconnect waits for its fetch): one
 * after another, a process of a dozen consumers took over 20 s to stop (issue 16). A stage that
 * hands over in-process keeps answering its producer until the adapters close, after this.
 */
export async function stopTogether(
  services: Array<{ name: string; stop(): Promise<void> }>,
  logger: Logger,
): Promise<void> {
  await Promise.all(services.map(({ name, stop }) => timed(logger, name, stop)));
}

/** Runs one step of a stop and logs how long it took. */
export async function timed(logger: Logger, what: string, work: () => Promise<unknown>): Promise<void> {
  const started = Date.now();
  await work();
  logger.info('stopped', { what, ms: Date.now() - started });
}

/** What every service exports: a name and a start function. */
export interface ServiceModule {
  name: ServiceName;
  /** True for services that answer HTTP: the process then listens before starting them. */
  serves?: boolean;
  /**
   * `import.meta.url` of the file that exports this module: a service that serves no routes and
   * names its file can run on the embedded process' pipeline thread (pipeline-thread.ts).
   */
  source?: string;
  start(ctx: ServiceContext): Promise<RunningService>;
}
