import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, type ServiceName } from '@spoor/config';
import { serviceModules } from '@spoor/host';
import { createLogger } from '@spoor/service-log';
import { runServices } from '@spoor/runtime';
import { makeTempDir } from '@spoor/testkit';
import {
  deploymentProblems,
  k8sTools,
  render,
  validateBuiltIn,
  validateKeda,
  type K8sObject,
  type K8sTools,
} from './k8s-checks.js';

// Issue 19: every overlay of deploy/k8s renders with kustomize and every object validates
// offline (kubernetes-validate's schemas; KEDA's ScaledObject against deploy/k8s/schemas); every
// Deployment has probes, limits and a locked-down security context; the autoscalers watch the
// topics and groups the services really consume, no further than the partitions reach.

const K8S = 'deploy/k8s';
const OVERLAYS = readdirSync(join(K8S, 'overlays'));
const SERVICES: ServiceName[] = ['ingest', 'gateway', 'enricher', 'sessionizer', 'classifier', 'worker'];
const CONSUMERS: ServiceName[] = ['enricher', 'sessionizer', 'classifier', 'worker'];
/** Placeholders for what the Secrets hold, so that the config map can be checked with loadConfig. */
const SECRET_STAND_INS = {
  SPOOR_CLICKHOUSE_URL: 'http://clickhouse:8123',
  SPOOR_REDIS_URL: 'redis://redis:6379',
  SPOOR_IP_SALT: 'stand-in',
  SPOOR_SMTP_URL: 'smtp://mail:587',
};

/** Where podSettings writes its stand-in files; removed after the suite. */
const STAND_IN_FILES = mkdtempSync(join(tmpdir(), 'spoor-k8s-files-'));

/**
 * A config map's settings as a pod sees them, for loadConfig: the Secrets' stand-ins (https and
 * rediss when the engines' CA files are set), and each `*_FILE` setting's file written with a
 * stand-in of its kind, since loadConfig reads them (issue 46).
 */
function podSettings(data: Record<string, string>, extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = { ...data, ...SECRET_STAND_INS, ...extra };
  if (env['SPOOR_CLICKHOUSE_TLS_CA_FILE']) env['SPOOR_CLICKHOUSE_URL'] = 'https://clickhouse:8443';
  if (env['SPOOR_REDIS_TLS_CA_FILE']) env['SPOOR_REDIS_URL'] = 'rediss://redis:6380';
  for (const [name, value] of Object.entries(env)) {
    if (!name.endsWith('_FILE')) continue;
    const file = join(STAND_IN_FILES, name);
    const pem = (label: string) => `-----BEGIN ${label}-----\nc3RhbmQtaW4=\n-----END ${label}-----\n`;
    writeFileSync(
      file,
      name.endsWith('KEY_FILE')
        ? pem('PRIVATE KEY')
        : name.endsWith('PASSWORD_FILE')
          ? 'stand-in\n'
          : pem('CERTIFICATE'),
    );
    env[name] = file;
    expect(value, name).to.match(/^\//);
  }
  return env;
}

/** The `*_FILE` settings' paths that no Secret volume of the pod holds. */
function filesOutsideSecrets(d: K8sObject, data: Record<string, string>): string[] {
  const pod = d['spec'].template.spec;
  const secretVolumes = new Set((pod.volumes ?? []).filter((v: any) => v.secret).map((v: any) => v.name as string));
  const mounts = (pod.containers[0].volumeMounts ?? []).filter((m: any) => secretVolumes.has(m.name));
  return Object.entries(data)
    .filter(([name]) => name.endsWith('_FILE'))
    .filter(([, path]) => !mounts.some((m: any) => path.startsWith(`${m.mountPath}/`)))
    .map(([name, path]) => `${name}=${path}`);
}

const of = (objects: K8sObject[], kind: string) => objects.filter((o) => o.kind === kind);
const named = (objects: K8sObject[], kind: string, name: string) =>
  objects.find((o) => o.kind === kind && o.metadata.name === name);
const container = (d: K8sObject) => d['spec'].template.spec.containers[0];

/** Each consumer's (topic, group) pairs, read from the service itself started on the embedded engines. */
const consumedByPrefix = new Map<string, Promise<Map<ServiceName, string[]>>>();
function consumedBy(prefix: string): Promise<Map<ServiceName, string[]>> {
  let found = consumedByPrefix.get(prefix);
  if (!found) consumedByPrefix.set(prefix, (found = readConsumes(prefix)));
  return found;
}

async function readConsumes(prefix: string): Promise<Map<ServiceName, string[]>> {
  const found = new Map<ServiceName, string[]>();
  for (const service of CONSUMERS) {
    const config = loadConfig({
      SPOOR_DATA_DIR: await makeTempDir('k8s-consumes'),
      SPOOR_SERVICES: service,
      SPOOR_TOPIC_PREFIX: prefix,
      SPOOR_LOG_LEVEL: 'error',
    });
    const running = await runServices(config, serviceModules, createLogger('test', 'error'));
    try {
      found.set(
        service,
        running.services
          .flatMap((s) => s.consumes ?? [])
          .map((c) => `${c.topic} ${c.group}`)
          .sort(),
      );
    } finally {
      await running.stop();
    }
  }
  return found;
}

describe('deploy/k8s', function () {
  after(() => rmSync(STAND_IN_FILES, { recursive: true, force: true }));

  this.timeout(120_000);
  let tools: K8sTools;

  before(function () {
    tools = k8sTools();
    if (tools.missing.length > 0) {
      const why = `missing ${tools.missing.join('; ')} (run: node deploy/k8s/tools.mjs prepare)`;
      process.stderr.write(`SKIPPED: deploy/k8s not rendered or validated: ${why}\n`);
      if (process.env['SPOOR_REQUIRE_INFRA'] === '1')
        throw new Error(`the Kubernetes manifest tools are required (SPOOR_REQUIRE_INFRA=1): ${why}`);
      this.skip();
    }
  });

  it('has the overlays the README describes', () => {
    expect(OVERLAYS).to.include.members(['small', 'production', 'production-lag-hpa', 'production-secure']);
    const readme = readFileSync(join(K8S, 'README.md'), 'utf8');
    for (const overlay of OVERLAYS) expect(readme, overlay).to.contain(`overlays/${overlay}`);
  });

  describe('the checks themselves', () => {
    let production: K8sObject[];
    before(() => {
      production = render(tools.kustomize, join(K8S, 'overlays', 'production'));
    });

    it('report a Deployment without a readiness probe, limits or a read-only root', () => {
      const broken = structuredClone(named(production, 'Deployment', 'enricher')!);
      const c = container(broken);
      delete c.readinessProbe;
      delete c.resources.limits.memory;
      c.securityContext.readOnlyRootFilesystem = false;
      c.env.push({ name: 'SPOOR_IP_SALT', value: 'written-down' });
      const problems = deploymentProblems(broken).join('\n');
      expect(problems).to.contain('no readiness probe on /healthz');
      expect(problems).to.contain('no memory limits');
      expect(problems).to.contain('root filesystem is not read-only');
      expect(problems).to.contain('SPOOR_IP_SALT is not taken from a Secret');
    });

    it('report an object that breaks the Kubernetes or KEDA schema', () => {
      const broken = structuredClone(named(production, 'Deployment', 'ingest')!);
      container(broken).readinesProbe = { httpGet: { path: '/healthz', port: 'http' } };
      expect(validateBuiltIn(tools.kubernetesValidate, [broken], tools.kubernetesVersions[0]!).join('\n')).to.contain(
        'readinesProbe',
      );
      const scaled = structuredClone(named(production, 'ScaledObject', 'enricher')!);
      scaled['spec'].maxReplicaCount = 'twelve';
      scaled['spec'].triggers[0].metadata.offsetResetPolicy = 'newest';
      const problems = validateKeda(scaled).join('\n');
      expect(problems).to.contain('/spec/maxReplicaCount');
      expect(problems).to.contain('offsetResetPolicy');
    });
  });

  for (const overlay of OVERLAYS) {
    describe(`overlays/${overlay}`, () => {
      let objects: K8sObject[];
      let partitions: number;
      before(() => {
        objects = render(tools.kustomize, join(K8S, 'overlays', overlay));
        const data = of(objects, 'ConfigMap').find((c) => c.metadata.name.startsWith('spoor-config'))!['data'];
        partitions = loadConfig(podSettings(data)).kafkaPartitions;
      });

      it('renders the same objects with the kustomize kubectl bundles, so `kubectl apply -k` works (issue 46)', () => {
        // kubectl 1.32's kustomize v5.5.0 panicked on production-lag-hpa's `$patch: delete` of KEDA objects.
        const byKubectl = render(tools.kubectlKustomize, join(K8S, 'overlays', overlay));
        const key = (o: K8sObject) => `${o.kind}/${o.metadata.name}`;
        const sorted = (list: K8sObject[]) => [...list].sort((a, b) => key(a).localeCompare(key(b)));
        expect(sorted(byKubectl), `kubectl ${tools.kubectlKustomizeOf}`).to.deep.equal(sorted(objects));
        // The machine's own kubectl, when it has one, renders them too.
        const kubectl = spawnSync('kubectl', ['kustomize', join(K8S, 'overlays', overlay)], { encoding: 'utf8' });
        if (!kubectl.error) expect(kubectl.status, kubectl.stderr.slice(0, 300)).to.equal(0);
      });

      it('renders objects that validate: built-in kinds against Kubernetes schemas (strict), KEDA against its own', () => {
        expect(objects.length).to.be.greaterThan(10);
        const keda = objects.filter((o) => o.apiVersion.startsWith('keda.sh/'));
        const builtIn = objects.filter((o) => !o.apiVersion.startsWith('keda.sh/'));
        for (const version of tools.kubernetesVersions) {
          expect(validateBuiltIn(tools.kubernetesValidate, builtIn, version), `Kubernetes ${version}`).to.deep.equal(
            [],
          );
        }
        expect(keda.flatMap(validateKeda)).to.deep.equal([]);
        expect(of(objects, 'Secret'), 'no Secret is written in the manifests').to.deep.equal([]);
        for (const o of objects) expect(o.metadata.namespace, `${o.kind}/${o.metadata.name}`).to.equal('spoor');
      });

      it('has a Deployment per service with probes, limits and a locked-down security context', () => {
        const deployments = of(objects, 'Deployment');
        expect(deployments.map((d) => d.metadata.name).sort()).to.deep.equal([...SERVICES].sort());
        expect(deployments.flatMap(deploymentProblems)).to.deep.equal([]);
        for (const d of deployments) {
          const env = container(d).env as Array<{ name: string; value?: string }>;
          expect(env.find((e) => e.name === 'SPOOR_SERVICES')?.value, d.metadata.name).to.equal(d.metadata.name);
          // The configuration each pod gets parses as Spoor's own (a typo stops start-up).
          const data = of(objects, 'ConfigMap').find(
            (c) => c.metadata.name === container(d).envFrom[0].configMapRef.name,
          )!['data'];
          const config = loadConfig(podSettings(data, { SPOOR_SERVICES: d.metadata.name }));
          // A file a setting names is a mounted Secret's (issue 46: certificates and passwords as files).
          expect(filesOutsideSecrets(d, data), d.metadata.name).to.deep.equal([]);
          expect(config, d.metadata.name).to.include({ healthHttp: true, host: '0.0.0.0' });
          expect(
            config.dataDir.startsWith('/var/lib/spoor/'),
            'the data dir is inside the emptyDir, not its mount point',
          ).to.equal(true);
        }
      });

      it('has a disruption budget per Deployment and Services for ingest and gateway', () => {
        for (const name of SERVICES) {
          const pdb = named(objects, 'PodDisruptionBudget', name);
          expect(pdb, `PodDisruptionBudget/${name}`).to.not.equal(undefined);
          expect(named(objects, 'Deployment', name)!['spec'].template.metadata.labels).to.include(
            pdb!['spec'].selector.matchLabels,
          );
        }
        for (const name of ['ingest', 'gateway']) {
          const svc = named(objects, 'Service', name)!;
          expect(named(objects, 'Deployment', name)!['spec'].template.metadata.labels).to.include(svc['spec'].selector);
          expect(svc['spec'].ports[0].targetPort).to.equal('http');
        }
      });

      it('scales ingest and gateway on CPU, and each consumer by one autoscaler at most, bounded by the partitions', () => {
        const hpas = of(objects, 'HorizontalPodAutoscaler');
        const scaled = of(objects, 'ScaledObject');
        for (const name of ['ingest', 'gateway']) {
          const hpa = hpas.find((h) => h['spec'].scaleTargetRef.name === name);
          expect(
            hpa?.['spec'].metrics.map((m: any) => m.resource?.name),
            name,
          ).to.deep.equal(['cpu']);
        }
        for (const name of CONSUMERS) {
          const autoscalers = [...hpas, ...scaled].filter((a) => a['spec'].scaleTargetRef.name === name);
          expect(autoscalers.length, `autoscalers of ${name}`).to.be.at.most(1);
        }
        for (const s of scaled)
          expect(s['spec'].maxReplicaCount, `ScaledObject/${s.metadata.name}`).to.be.at.most(partitions);
        for (const h of hpas.filter((x) => CONSUMERS.includes(x['spec'].scaleTargetRef.name))) {
          expect(h['spec'].maxReplicas, `HorizontalPodAutoscaler/${h.metadata.name}`).to.be.at.most(partitions);
        }
      });

      it('watches the topics and consumer groups each consumer really uses', async () => {
        const data = of(objects, 'ConfigMap').find((c) => c.metadata.name.startsWith('spoor-config'))!['data'];
        const consumes = await consumedBy(loadConfig(podSettings(data)).topicPrefix);
        for (const s of of(objects, 'ScaledObject')) {
          const pairs = s['spec'].triggers.map((t: any) => `${t.metadata.topic} ${t.metadata.consumerGroup}`).sort();
          expect(pairs, `ScaledObject/${s.metadata.name}`).to.deep.equal(consumes.get(s['spec'].scaleTargetRef.name));
          for (const t of s['spec'].triggers)
            expect(data[t.metadata.bootstrapServersFromEnv], 'bootstrapServersFromEnv names a config map key').to.be.a(
              'string',
            );
        }
        for (const h of of(objects, 'HorizontalPodAutoscaler').filter((x) =>
          CONSUMERS.includes(x['spec'].scaleTargetRef.name),
        )) {
          const pairs = h['spec'].metrics
            .map((m: any) => m.external.metric.selector.matchLabels)
            .map((l: any) => `${l.topic} ${l.consumergroup}`)
            .sort();
          expect(pairs, `HorizontalPodAutoscaler/${h.metadata.name}`).to.deep.equal(
            consumes.get(h['spec'].scaleTargetRef.name),
          );
          for (const m of h['spec'].metrics) expect(m.external.metric.name).to.equal('kafka_consumergroup_lag');
        }
      });
    });
  }
});
