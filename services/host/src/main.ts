// `npm start`: every service named by SPOOR_SERVICES (default all) in this one process.
import './threadpool.js';
import { main } from '@spoor/runtime';
import { serviceModules } from './service-modules.js';

await main(serviceModules);
