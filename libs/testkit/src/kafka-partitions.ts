import { Partitioners } from 'kafkajs';

const pick = Partitioners.DefaultPartitioner();

/**
 * The partition of `partitions` that a keyed message lands on: kafkajs' default partitioner
 * (Java's murmur2 of the key), which KafkaBus's producer uses. Lets a test choose keys (a load's
 * session ids) that reach every partition of a topic.
 */
export function kafkaPartitionOf(key: string, partitions: number): number {
  const partitionMetadata = Array.from({ length: partitions }, (_, partitionId) => ({
    partitionId,
    leader: 0,
    partitionErrorCode: 0,
    replicas: [0],
    isr: [0],
  }));
  return pick({ topic: '', partitionMetadata, message: { key, value: null } });
}
