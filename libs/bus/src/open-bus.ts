import type { Logger } from '@spoor/service-log';
import type { Bus } from './bus.js';
import { EmbeddedBus } from './embedded/embedded-bus.js';
import type { FsyncMode } from './embedded/topic-log.js';
import { KafkaBus } from './kafka/kafka-bus.js';
import type { KafkaSasl, KafkaTls } from './kafka/kafka-access.js';

export type BusOptions =
  | {
      kind: 'kafka';
      brokers: string[];
      clientId: string;
      logger: Logger;
      partitions?: number;
      replicationFactor?: number;
      /** SPOOR_BUS_RETENTION_HOURS, in ms: `retention.ms` of the topics it creates. */
      retentionMs?: number;
      /** SPOOR_KAFKA_TLS* (issue 46); null: plaintext. */
      tls?: KafkaTls | null;
      /** SPOOR_KAFKA_SASL_*; null: none. */
      sasl?: KafkaSasl | null;
    }
  | {
      kind: 'embedded';
      dir: string;
      logger: Logger;
      fsync?: FsyncMode;
      fsyncIntervalMs?: number;
      /** SPOOR_BUS_RETENTION_HOURS, in ms. */
      retentionMs?: number;
    };

export function openBus(opts: BusOptions): Promise<Bus> {
  return opts.kind === 'kafka' ? KafkaBus.connect(opts) : EmbeddedBus.open(opts);
}
