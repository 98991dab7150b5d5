import { expect } from 'chai';
import { KafkaRequestQueue, requestQueueFixed } from '../src/kafka/request-queue-fix.js';

// kafkajs 2.2.4's request queue re-armed a 1 ms timer forever once a connection had answered a
// request (issue 41: most of an idle Kafka-mode process' CPU). Its queue, driven as a connection
// drives it: push a request, answer it.
describe("kafkajs' request queue schedules checks only while requests wait (issue 41)", () => {
  const silent = { debug() {}, info() {}, warn() {}, error() {} };
  const queues: Array<{ destroy(): void }> = [];
  const queue = (maxInFlightRequests: number | null, requestTimeout = 30_000) => {
    const q = new KafkaRequestQueue({
      maxInFlightRequests,
      requestTimeout,
      enforceRequestTimeout: true,
      clientId: 'test',
      broker: '127.0.0.1:9092',
      logger: silent,
    }) as unknown as {
      push(r: unknown): void;
      fulfillRequest(r: { correlationId: number; payload: Buffer; size: number }): void;
      destroy(): void;
      scheduleRequestTimeoutCheck(): void;
      pending: unknown[];
      throttleCheckTimeoutId: unknown;
    };
    queues.push(q);
    return q;
  };
  const request = (correlationId: number, sent: number[], answers: number[], failures: Error[] = []) => ({
    entry: {
      correlationId,
      apiKey: 1,
      apiName: 'Fetch',
      apiVersion: 11,
      resolve: () => answers.push(correlationId),
      reject: (err: Error) => failures.push(err),
    },
    expectResponse: true,
    sendRequest: () => sent.push(correlationId),
  });
  afterEach(() => queues.splice(0).forEach((q) => q.destroy()));

  it('applies to the kafkajs this repository pins', () => {
    expect(requestQueueFixed).to.equal(true);
  });

  it('an answered request with nothing waiting leaves no timer behind', () => {
    const q = queue(null);
    const sent: number[] = [];
    const answers: number[] = [];
    q.push(request(1, sent, answers));
    q.fulfillRequest({ correlationId: 1, payload: Buffer.alloc(0), size: 0 });
    expect(answers).to.deep.equal([1]);
    expect(q.throttleCheckTimeoutId, 'a check scheduled with nothing to check').to.equal(null);
  });

  it('a request waiting for an in-flight slot still gets a check, and is sent when the slot frees', () => {
    const q = queue(1);
    const sent: number[] = [];
    const answers: number[] = [];
    q.push(request(1, sent, answers));
    q.push(request(2, sent, answers));
    expect(sent).to.deep.equal([1]);
    expect(q.pending).to.have.length(1);
    expect(q.throttleCheckTimeoutId, 'no check scheduled for the waiting request').to.not.equal(null);
    q.fulfillRequest({ correlationId: 1, payload: Buffer.alloc(0), size: 0 });
    expect(sent).to.deep.equal([1, 2]);
    q.fulfillRequest({ correlationId: 2, payload: Buffer.alloc(0), size: 0 });
    expect(answers).to.deep.equal([1, 2]);
    expect(q.pending).to.have.length(0);
  });

  it('a request past its timeout is still failed (a connection as kafkajs starts it)', async () => {
    const q = queue(null, 50);
    q.scheduleRequestTimeoutCheck();
    const sent: number[] = [];
    const answers: number[] = [];
    const failures: Error[] = [];
    q.push(request(7, sent, answers, failures));
    for (let waited = 0; failures.length === 0 && waited < 5_000; waited += 20)
      await new Promise((r) => setTimeout(r, 20));
    expect(answers).to.deep.equal([]);
    expect(failures.map((e) => e.name)).to.deep.equal(['KafkaJSRequestTimeoutError']);
  });
});
