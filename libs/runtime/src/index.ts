export { openAdapters, type Adapters } from './adapters.js';
export type { ServiceContext, ServiceModule, RunningService } from './service-module.js';
export { runServices, main, type RunningProcess } from './run-services.js';
export { buildVersion } from './build-version.js';
export { buildHealthReport, LAG_PROBLEM, type HealthReportDeps } from './health-report.js';
export { HEARTBEAT_KIND, HEARTBEAT_RETENTION_MS, type Heartbeat } from './heartbeat.js';
export { LocalHandoff } from './local-handoff.js';
export { ProcessMetrics } from './process-metrics.js';
export { LagSampler, type LagSample } from './lag-sampler.js';
