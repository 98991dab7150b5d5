// The yaml library, split into its own chunk: only applying a YAML rules document loads it.
export { parse } from 'yaml';
