export { openAdapters, type Adapters } from './adapters.js';
export type { ServiceContext, ServiceModule, RunningService } from './service-module.js';
export { runServices, main, type RunningProcess } from './run-services.js';
