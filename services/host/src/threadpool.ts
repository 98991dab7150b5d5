// Imported first by main.ts, before anything can start libuv's thread pool (it reads this once).
// The pool runs DuckDB's statements — one at a time per connection: a writer, two readers and
// one for jobs (libs/store, duckdb-store.ts) — and the embedded log's file I/O. With libuv's
// default of 4 threads, four long scans at once would hold every log write (and so ingest).
process.env['UV_THREADPOOL_SIZE'] ??= '8';
export {};
