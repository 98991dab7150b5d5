export { ingestModule } from './ingest-module.js';
export { IngestService } from './ingest-service.js';
export { ProjectResolver } from './project-resolver.js';
export { partitionKey } from './event-intake.js';
