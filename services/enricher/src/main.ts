// Runs the enricher alone (split deployment); several copies share the work as one consumer group.
import { main } from '@spoor/runtime';
import { enricherModule } from './enricher-module.js';

await main([enricherModule], ['enricher']);
