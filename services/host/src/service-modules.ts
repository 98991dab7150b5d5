import { enricherModule } from '@spoor/enricher';
import { ingestModule } from '@spoor/ingest';
import type { ServiceModule } from '@spoor/runtime';
import { sessionizerModule } from '@spoor/sessionizer';

/** Every service the host can run; SPOOR_SERVICES picks among them. Order: consumers last. */
export const serviceModules: ServiceModule[] = [ingestModule, enricherModule, sessionizerModule];
