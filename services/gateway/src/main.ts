// Runs the gateway alone (split deployment); replicas share nothing but the store.
import { main } from '@spoor/runtime';
import { gatewayModule } from './gateway-module.js';

await main([gatewayModule], ['gateway']);
