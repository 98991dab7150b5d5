export { serviceModules } from './service-modules.js';
