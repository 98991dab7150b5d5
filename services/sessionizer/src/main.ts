// Runs the sessionizer alone (split deployment); copies share partitions as one consumer group.
import { main } from '@spoor/runtime';
import { sessionizerModule } from './sessionizer-module.js';

await main([sessionizerModule], ['sessionizer']);
