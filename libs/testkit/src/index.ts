// Test infrastructure: real engines for the tests (see deploy/local and README).
// Implemented by engines.ts; this file only re-exports.
export * from './engines.js';
export { freePort } from './runners/port-allocator.js';
export { kafkaPartitionOf } from './kafka-partitions.js';
export { startSmtpCapture, type SmtpCapture, type CapturedMail } from './smtp-capture.js';
export { launchChromium } from './chromium-browser.js';
export { parquetColumnTypes, readExport, type ExportedRow } from './export-readers.js';
