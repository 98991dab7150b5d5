#!/usr/bin/env node
// The `spoor` command: a committed file, so that `npm install` links it into node_modules/.bin
// before the build has made dist/ (the compiled entry is apps/cli/src/main.ts).
await import('../dist/src/main.js');
