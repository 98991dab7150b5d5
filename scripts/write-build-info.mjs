// Build step: records `git describe --tags --long` (DESIGN.md, HTTP conventions: info.version is
// <tag>-<count>-g<hash>) into dist/build-info.json, which the gateway reads at start-up.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';

function git(args) {
  try {
    return execFileSync('git', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return null;
  }
}

const described = git(['describe', '--tags', '--long']);
const hash = git(['rev-parse', '--short', 'HEAD']);
// Without a tag, count the commits as describe would from a v0.0.0 at the root: `-0-` said
// "this is the tagged commit" of every build (issue 20).
const commits = git(['rev-list', '--count', 'HEAD']) ?? '0';
const version = described ?? (hash ? `v0.0.0-${commits}-g${hash}` : 'v0.0.0-0-gunknown');
mkdirSync('dist', { recursive: true });
writeFileSync('dist/build-info.json', JSON.stringify({ version, built_at: new Date().toISOString() }) + '\n');
console.log(`build-info: ${version}`);
