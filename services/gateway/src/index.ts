export { gatewayModule, describeApi, declareGateway } from './gateway-module.js';
export { buildApiDocument, createApiRegistry } from './api-document.js';
