// Runs ingest alone (split deployment); SPOOR_SERVICES is ignored here.
import { main } from '@spoor/runtime';
import { ingestModule } from './ingest-module.js';

await main([ingestModule], ['ingest']);
