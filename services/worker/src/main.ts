// Runs the worker alone (split deployment); copies share job commands as one consumer group.
import { main } from '@spoor/runtime';
import { workerModule } from './worker-module.js';

await main([workerModule], ['worker']);
