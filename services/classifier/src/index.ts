export { classifierModule } from './classifier-module.js';
export { ClassifierService, classificationJob } from './classifier-service.js';
