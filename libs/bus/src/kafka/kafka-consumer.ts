import type { Consumer, EachBatchPayload } from 'kafkajs';
import type { Logger } from '@spoor/service-log';
import type { BatchContext, BatchHandler, DeliveredMessage, SubscribeOptions } from '../bus.js';
import { backoffDelay, sleep } from '../retry-backoff.js';
import { traceIdsOf } from '../trace-context.js';

/**
 * Runs `consumer` with manual commits: a chunk's offsets are committed only after the handler
 * resolved, so a crash replays at most the uncommitted chunk (at-least-once). A failing handler
 * is retried with backoff on the same chunk, keeping the partition's order.
 */
export async function runKafkaConsumer(consumer: Consumer, opts: SubscribeOptions, logger: Logger): Promise<void> {
  const maxBatch = opts.maxBatch ?? 1000;
  await consumer.connect();
  await consumer.subscribe({ topic: opts.topic, fromBeginning: true });
  const lingering = (opts.lingerMs ?? 0) > 0;
  // A lingering consumer (issue 41) takes what one fetch brought from all its partitions in one
  // handler call: its store writes and KV round trips are paid once per fetch, not per partition.
  const handler = lingering ? gatherCalls(opts.handler) : opts.handler;
  await consumer.run({
    autoCommit: false,
    eachBatchAutoResolve: false,
    // Every partition of a fetch at once when lingering, so that their batches meet in one call;
    // kafkajs runs no more than the consumer has partitions.
    partitionsConsumedConcurrently: lingering ? 64 : 2,
    eachBatch: (payload) => handleBatch(payload, { ...opts, handler }, maxBatch, logger),
  });
}

/**
 * A handler that runs calls arriving in the same turn of the event loop (the partitions of one
 * fetch, handed over side by side) as one call on their messages concatenated, and settles each
 * caller with its outcome. Each partition's messages keep their order (one session's events are
 * on one partition), and a failure fails every caller, each of which retries its own batch, so
 * at-least-once and per-key order hold as for one partition.
 */
export function gatherCalls(handler: BatchHandler): BatchHandler {
  let waiting: { batches: DeliveredMessage[][]; contexts: BatchContext[]; done: Promise<void> } | null = null;
  const run = async (batches: DeliveredMessage[][], contexts: BatchContext[]) => {
    await new Promise((resolve) => setImmediate(resolve));
    waiting = null;
    await handler(batches.length === 1 ? batches[0]! : batches.flat(), {
      heartbeat: async () => void (await Promise.all(contexts.map((c) => c.heartbeat()))),
    });
  };
  return (batch, ctx) => {
    if (!waiting) {
      const batches: DeliveredMessage[][] = [];
      const contexts: BatchContext[] = [];
      waiting = { batches, contexts, done: run(batches, contexts) };
    }
    waiting.batches.push(batch);
    waiting.contexts.push(ctx);
    return waiting.done;
  };
}

async function handleBatch(
  payload: EachBatchPayload,
  opts: SubscribeOptions,
  maxBatch: number,
  logger: Logger,
): Promise<void> {
  const { batch, heartbeat, isRunning, isStale, resolveOffset, commitOffsetsIfNecessary } = payload;
  // kafkajs has no background heartbeat: a handler that runs long (a job) calls this, throttled.
  let lastBeat = Date.now();
  const ctx = {
    heartbeat: async () => {
      if (Date.now() - lastBeat < 500) return;
      lastBeat = Date.now();
      await heartbeat();
    },
  };
  for (let i = 0; i < batch.messages.length; i += maxBatch) {
    const slice = batch.messages.slice(i, i + maxBatch);
    const messages: DeliveredMessage[] = slice.map((m) => ({
      topic: batch.topic,
      partition: batch.partition,
      offset: m.offset,
      key: m.key?.toString('utf8') ?? '',
      value: m.value?.toString('utf8') ?? '',
      headers: m.headers ? textHeaders(m.headers) : undefined,
    }));
    for (let attempt = 0; ; attempt++) {
      if (!isRunning() || isStale()) return;
      try {
        await opts.handler(messages, ctx);
        logger.debug('batch handled', {
          topic: batch.topic,
          group: opts.group,
          partition: batch.partition,
          messages: messages.length,
          trace_ids: traceIdsOf(messages),
        });
        break;
      } catch (err) {
        logger.warn('handler failed; retrying the batch', {
          err,
          topic: batch.topic,
          partition: batch.partition,
          attempt,
          trace_ids: traceIdsOf(messages),
        });
        await sleep(backoffDelay(attempt));
        await heartbeat();
      }
    }
    const last = slice[slice.length - 1]!.offset;
    resolveOffset(last);
    // The batch's own commit, not consumer.commitOffsets: that one returns without committing once
    // the consumer is stopping, so a slice handled during a graceful stop was handled again after
    // the restart (issue 16, test/faults/graceful-shutdown.test.ts).
    await commitOffsetsIfNecessary({
      topics: [{ topic: batch.topic, partitions: [{ partition: batch.partition, offset: String(BigInt(last) + 1n) }] }],
    });
    await heartbeat();
  }
}

/** kafkajs hands header values as Buffers (or arrays of them for a repeated name): the first, as text. */
function textHeaders(
  headers: NonNullable<EachBatchPayload['batch']['messages'][number]['headers']>,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const first = Array.isArray(value) ? value[0] : value;
    if (first !== undefined) out[name] = first.toString();
  }
  return out;
}
