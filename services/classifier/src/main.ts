// Runs the classifier alone (split deployment); copies share partitions as one consumer group.
import { main } from '@spoor/runtime';
import { classifierModule } from './classifier-module.js';

await main([classifierModule], ['classifier']);
