export { runCli, buildProgram } from './cli-program.js';
export { parseTimeArgument } from './time-argument.js';
export { parseDuration } from './duration-argument.js';
