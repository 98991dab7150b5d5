import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { parseAllDocuments, stringify } from 'yaml';

/** A rendered Kubernetes object, loosely typed: the checks below read what they need. */
export type K8sObject = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string };
  [field: string]: any;
};

export interface K8sTools {
  kustomize: string;
  /** The kustomize that kubectl bundles (`kubectl kustomize`, `kubectl apply -k`), built from the same module. */
  kubectlKustomize: string;
  /** The kubectl minor version that bundles it. */
  kubectlKustomizeOf: string;
  kubernetesValidate: string;
  kubernetesVersions: string[];
  missing: string[];
}

/** Where `node deploy/k8s/tools.mjs prepare` put the tools, and what is missing. */
export function k8sTools(): K8sTools {
  const out = spawnSync(process.execPath, ['deploy/k8s/tools.mjs', 'paths'], { encoding: 'utf8' });
  if (out.status !== 0) throw new Error(`deploy/k8s/tools.mjs paths failed: ${out.stderr}`);
  return JSON.parse(out.stdout) as K8sTools;
}

/** `kustomize build <dir>`, parsed. */
export function render(kustomize: string, dir: string): K8sObject[] {
  const out = spawnSync(kustomize, ['build', dir], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (out.status !== 0) throw new Error(`kustomize build ${dir} failed: ${out.stderr || out.error?.message}`);
  return parseAllDocuments(out.stdout)
    .map((d) => d.toJS() as K8sObject)
    .filter(Boolean);
}

/**
 * Validates built-in kinds with kubernetes-validate (strict: unknown fields refused) against
 * each Kubernetes version. Answers one line per problem; an object without a schema is one.
 */
export function validateBuiltIn(kubernetesValidate: string, objects: K8sObject[], version: string): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'spoor-k8s-'));
  try {
    const file = join(dir, 'objects.yaml');
    writeFileSync(file, objects.map((o) => stringify(o)).join('---\n'));
    const out = spawnSync(kubernetesValidate, ['--strict', '--quiet', '-k', version, file], { encoding: 'utf8' });
    const lines = `${out.stdout}\n${out.stderr}`
      .split('\n')
      .filter((l) => /^(ERROR|WARN|CRITICAL)\b|Traceback|Error:/.test(l));
    if (out.status !== 0 && lines.length === 0)
      lines.push(`kubernetes-validate exited ${out.status}: ${out.stderr.slice(0, 500)}`);
    return lines.map((l) => l.replace(file, 'objects.yaml'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const ajv = new Ajv({ allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true });
const scaledObjectSchema = ajv.compile<unknown>(
  JSON.parse(readFileSync('deploy/k8s/schemas/keda-scaledobject.schema.json', 'utf8')) as object,
);

/** KEDA's objects against the vendored schema (deploy/k8s/schemas). */
export function validateKeda(object: K8sObject): string[] {
  if (object.kind !== 'ScaledObject') return [`${object.kind}/${object.metadata.name}: no schema for this KEDA kind`];
  if (scaledObjectSchema(object as unknown)) return [];
  return (scaledObjectSchema.errors ?? []).map(
    (e) => `ScaledObject/${object.metadata.name}: ${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`,
  );
}

/** Variables whose values are secrets: they must come from a Secret, never be written. */
const SECRET_VARIABLE = /PASSWORD|SECRET|TOKEN|SALT|KEY|CLICKHOUSE_URL|REDIS_URL|SMTP_URL/;

/**
 * What a Spoor Deployment must have (issue 19): readiness on /healthz, liveness, CPU and memory
 * requests and limits, a non-root pod with a read-only root filesystem, every writable mount an
 * emptyDir, and secrets only by reference. Answers one line per problem.
 */
export function deploymentProblems(d: K8sObject): string[] {
  const name = `Deployment/${d.metadata.name}`;
  const problems: string[] = [];
  const pod = d['spec']?.template?.spec ?? {};
  const containers: any[] = pod.containers ?? [];
  if (containers.length === 0) problems.push(`${name}: no container`);
  if (pod.securityContext?.runAsNonRoot !== true)
    problems.push(`${name}: pod securityContext.runAsNonRoot is not true`);
  if (!(Number(pod.securityContext?.runAsUser) > 0))
    problems.push(`${name}: pod securityContext.runAsUser is not a non-root uid`);
  const volumes = new Map<string, any>((pod.volumes ?? []).map((v: any) => [v.name, v]));
  for (const c of containers) {
    const where = `${name} container ${c.name}`;
    if (c.readinessProbe?.httpGet?.path !== '/healthz') problems.push(`${where}: no readiness probe on /healthz`);
    if (!c.livenessProbe?.httpGet?.path) problems.push(`${where}: no liveness probe`);
    for (const kind of ['requests', 'limits']) {
      for (const resource of ['cpu', 'memory'])
        if (!c.resources?.[kind]?.[resource]) problems.push(`${where}: no ${resource} ${kind}`);
    }
    const sc = c.securityContext ?? {};
    if (sc.readOnlyRootFilesystem !== true) problems.push(`${where}: root filesystem is not read-only`);
    if (sc.allowPrivilegeEscalation !== false) problems.push(`${where}: allowPrivilegeEscalation is not false`);
    if (!(sc.capabilities?.drop ?? []).includes('ALL')) problems.push(`${where}: capabilities are not all dropped`);
    for (const m of c.volumeMounts ?? []) {
      if (!m.readOnly && !volumes.get(m.name)?.emptyDir)
        problems.push(`${where}: writable mount ${m.mountPath} is not an emptyDir`);
    }
    for (const e of c.env ?? []) {
      if (SECRET_VARIABLE.test(e.name) && (e.value !== undefined || !e.valueFrom?.secretKeyRef))
        problems.push(`${where}: ${e.name} is not taken from a Secret`);
    }
    if (!(c.ports ?? []).some((p: any) => p.name === 'http')) problems.push(`${where}: no port named http`);
  }
  return problems;
}
