// kafkajs 2.2.4's request queue (one per broker connection) re-arms a timer after every check of
// its pending requests, even with none pending and no throttle: `throttledUntil - Date.now()` is
// negative then, so the timer fires after 1 ms, checks nothing, and re-arms — about a thousand
// wake-ups a second for every connection from its first response on (tulios/kafkajs#1556, #1604,
// #1704; the fix proposed in #1667 is unreleased). In Spoor's Kafka mode that was most of an idle
// process' CPU: 47 of the pipeline thread's and 27 of the HTTP thread's ms a second (issue 41).
//
// The queue needs a timer only while requests wait in it: a response or a timeout checks the
// queue anyway, and a request pushed while throttled schedules its own check. So the check is
// scheduled only when something is pending; what kafkajs does then is left as it is. Applied
// once, on import, to the module kafkajs itself loads (same file, same module cache entry), and
// only while the method still has the shape this was written against: a kafkajs that changed it
// is left alone.
import { createRequire } from 'node:module';

interface RequestQueueLike {
  pending: unknown[];
  scheduleCheckPendingRequests(): void;
}

const require = createRequire(import.meta.url);
const FIXED = Symbol.for('spoor.kafkajs.requestQueueFix');

/** kafkajs' RequestQueue class, as kafkajs' own connections construct it. */
export const KafkaRequestQueue = require('kafkajs/src/network/requestQueue/index.js') as {
  new (options: Record<string, unknown>): RequestQueueLike;
  prototype: RequestQueueLike & { [FIXED]?: { pending: boolean } };
};

const proto = KafkaRequestQueue.prototype;
const shapeOf = (method: () => void) => method.toString();

function fixPendingCheck(): boolean {
  const original = proto.scheduleCheckPendingRequests;
  const source = shapeOf(original);
  if (!source.includes('this.throttledUntil - Date.now()') || !source.includes('this.pending.length > 0')) return false;
  proto.scheduleCheckPendingRequests = function (this: RequestQueueLike) {
    if (this.pending.length === 0) return;
    original.call(this);
  };
  return true;
}

// Once per kafkajs module, however many copies of this file are loaded.
const applied = (proto[FIXED] ??= { pending: fixPendingCheck() });
/** Whether the queue schedules its check only while requests are pending (the fix applied). */
export const requestQueueFixed = applied.pending;
