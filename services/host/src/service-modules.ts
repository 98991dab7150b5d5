import { classifierModule } from '@spoor/classifier';
import { enricherModule } from '@spoor/enricher';
import { gatewayModule } from '@spoor/gateway';
import { ingestModule } from '@spoor/ingest';
import type { ServiceModule } from '@spoor/runtime';
import { sessionizerModule } from '@spoor/sessionizer';
import { workerModule } from '@spoor/worker';

/** Every service the host can run; SPOOR_SERVICES picks among them. */
export const serviceModules: ServiceModule[] = [
  ingestModule,
  gatewayModule,
  enricherModule,
  sessionizerModule,
  classifierModule,
  workerModule,
];
