/**
 * True when a kafkajs admin can connect to `brokers` and list topics: the readiness test for
 * the local broker and the container alike, made with the client the services use (kafkajs
 * 2.2.4, which speaks Kafka's older protocol versions only; hence Kafka 3.9, not 4.x).
 */
export async function kafkaAnswers(brokers: string): Promise<boolean> {
  const { Kafka, logLevel } = await import('kafkajs');
  const kafka = new Kafka({
    clientId: 'spoor-testkit-probe',
    brokers: brokers.split(','),
    logLevel: logLevel.NOTHING,
    connectionTimeout: 1_000,
    requestTimeout: 3_000,
    retry: { retries: 0 },
  });
  const admin = kafka.admin();
  try {
    await admin.connect();
    await admin.listTopics();
    return true;
  } catch {
    return false;
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}
