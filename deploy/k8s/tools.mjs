#!/usr/bin/env node
// The tools that render and validate deploy/k8s offline (issue 19; README.md beside this file):
//
//   node deploy/k8s/tools.mjs prepare   install them into .cache/k8s-tools (or $SPOOR_CACHE_DIR):
//                                       kustomize built from its Go module (the Go module proxy,
//                                       ~1 min on 2 cores the first time), and the older kustomize
//                                       that kubectl bundles (issue 46: `kubectl apply -k` must
//                                       work too), kubernetes-validate with its offline schemas
//                                       (PyPI, a venv, ~10 s)
//   node deploy/k8s/tools.mjs paths     print {"kustomize":…, "kubernetesValidate":…, "missing":[…]}
//
// Versions are pinned in tools.json; a tool of another version is reinstalled. Needs `go` (the
// machine's Go toolchain) and `python3` with venv. `.ci/run` runs `prepare`; test/k8s runs
// `paths` and fails, under SPOOR_REQUIRE_INFRA=1, when something is missing.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, '../..');
const pins = JSON.parse(readFileSync(join(here, 'tools.json'), 'utf8'));
const root = join(process.env.SPOOR_CACHE_DIR ?? join(repo, '.cache'), 'k8s-tools');
const kustomize = join(root, 'bin', 'kustomize');
const kubectlKustomize = join(root, `kustomize-${pins.kubectlKustomize.version}`, 'kustomize');
const venv = join(root, 'venv');
const kubernetesValidate = join(venv, 'bin', 'kubernetes-validate');
const venvStamp = join(venv, 'spoor-requirement.txt');

const run = (cmd, args, opts = {}) => spawnSync(cmd, args, { encoding: 'utf8', ...opts });

/** The binary is there and built from the pinned module version (`kustomize version` says `(devel)` for some). */
function kustomizeReady(bin = kustomize, pin = pins.kustomize) {
  if (!existsSync(bin)) return false;
  const out = run('go', ['version', '-m', bin]);
  return (
    out.status === 0 &&
    new RegExp(`\\bmod\\s+${pin.module.replaceAll('.', '\\.')}\\s+${pin.version}\\b`).test(out.stdout)
  );
}

function installKustomize(bin, pin) {
  if (kustomizeReady(bin, pin)) return;
  const spec = `${pin.module}@${pin.version}`;
  step(`go install ${spec}`, 'go', ['install', spec], { env: { ...process.env, GOBIN: dirname(bin) } });
  if (!kustomizeReady(bin, pin)) {
    console.error(`k8s-tools: ${bin} does not report ${pin.version}`);
    process.exit(1);
  }
}

function validatorReady() {
  return (
    existsSync(kubernetesValidate) &&
    existsSync(venvStamp) &&
    readFileSync(venvStamp, 'utf8') === pins.kubernetesValidate.requirement
  );
}

function step(what, cmd, args, opts) {
  const t0 = Date.now();
  const out = run(cmd, args, { stdio: ['ignore', 'inherit', 'inherit'], ...opts });
  if (out.error || out.status !== 0) {
    console.error(
      `k8s-tools: ${what} failed (${out.error?.message ?? `exit ${out.status}`}): ${cmd} ${args.join(' ')}`,
    );
    process.exit(1);
  }
  console.error(`k8s-tools: ${what} (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
}

function prepare() {
  mkdirSync(root, { recursive: true });
  installKustomize(kustomize, pins.kustomize);
  installKustomize(kubectlKustomize, pins.kubectlKustomize);
  if (!validatorReady()) {
    rmSync(venv, { recursive: true, force: true });
    step('python3 -m venv', 'python3', ['-m', 'venv', venv]);
    step(`pip install ${pins.kubernetesValidate.requirement}`, join(venv, 'bin', 'pip'), [
      'install',
      '-q',
      '--disable-pip-version-check',
      pins.kubernetesValidate.requirement,
    ]);
    writeFileSync(venvStamp, pins.kubernetesValidate.requirement);
  }
  console.error(`k8s-tools: ready in ${root}`);
}

function paths() {
  const missing = [];
  if (!kustomizeReady()) missing.push(`kustomize ${pins.kustomize.version} at ${kustomize}`);
  if (!kustomizeReady(kubectlKustomize, pins.kubectlKustomize))
    missing.push(`kustomize ${pins.kubectlKustomize.version} at ${kubectlKustomize}`);
  if (!validatorReady()) missing.push(`${pins.kubernetesValidate.requirement} at ${kubernetesValidate}`);
  console.log(
    JSON.stringify({
      kustomize,
      kubectlKustomize,
      kubectlKustomizeOf: pins.kubectlKustomize.kubectl,
      kubernetesValidate,
      kubernetesVersions: pins.kubernetesVersions,
      missing,
    }),
  );
}

const command = process.argv[2];
if (command === 'prepare') prepare();
else if (command === 'paths') paths();
else {
  console.error('usage: node deploy/k8s/tools.mjs prepare|paths');
  process.exit(2);
}
