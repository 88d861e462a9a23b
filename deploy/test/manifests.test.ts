/**
 * deploy/k8s without a cluster: every manifest parses and passes the Kubernetes schemas (and names
 * no field they lack), and the files agree with each other and with the server: the ConfigMap and
 * Secret load through the server's own loadConfig, probes hit routes that answer without a
 * credential, selectors select the right pods, the grace period covers the drain, every container
 * runs unprivileged with limits and a pinned image.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Script } from 'node:vm';
import type { IConfigMap } from 'kubernetes-models/v1/ConfigMap';
import type { ISecret } from 'kubernetes-models/v1/Secret';
import type { IService } from 'kubernetes-models/v1/Service';
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IProbe } from 'kubernetes-models/v1/Probe';
import type { IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import type { IHorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import type { IPodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import type { INetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import { loadConfig } from '../../packages/server/src/config.ts';
import { testApp } from '../../packages/server/test/helpers.ts';
import {
  DNS_LABEL,
  K8S_DIR,
  MIB,
  kindOf,
  loadManifests,
  manifestFiles,
  parseQuantity,
  parseYamlFile,
  selects,
  unknownFields,
  validateManifest,
  type Manifest,
} from './k8s.ts';

const manifests = loadManifests();
const SECRET_EXAMPLE = 'secret.example.yaml';

function only<T>(kind: string, name?: string): T {
  const found = manifests.filter(
    ({ manifest }) => manifest.kind === kind && (name === undefined || manifest.metadata.name === name),
  );
  assert.equal(
    found.length,
    1,
    `expected exactly one ${kind}${name === undefined ? '' : ` named ${name}`}, found ${found.length}`,
  );
  return found[0]!.manifest as unknown as T;
}

const configMap = only<IConfigMap>('ConfigMap');
const secret = only<ISecret>('Secret');
const api = only<IDeployment>('Deployment', 'crypto-service');
const redis = only<IDeployment>('Deployment', 'crypto-service-redis');
const apiService = only<IService>('Service', 'crypto-service');
const redisService = only<IService>('Service', 'crypto-service-redis');
const hpa = only<IHorizontalPodAutoscaler>('HorizontalPodAutoscaler');
const pdb = only<IPodDisruptionBudget>('PodDisruptionBudget');
const redisPolicy = only<INetworkPolicy>('NetworkPolicy');
const deployments = [api, redis];

const podLabels = (deployment: IDeployment) => deployment.spec!.template.metadata!.labels!;
const podSpec = (deployment: IDeployment) => deployment.spec!.template.spec!;
const apiContainer = podSpec(api).containers.find((container) => container.name === 'crypto-service')!;

/** The environment a crypto-service pod gets: the ConfigMap, then the Secret (envFrom order). */
function podEnvironment(): Record<string, string> {
  const fromSecret = {
    ...Object.fromEntries(
      Object.entries(secret.data ?? {}).map(([key, value]) => [key, Buffer.from(value, 'base64').toString('utf8')]),
    ),
    ...secret.stringData,
  };
  return { ...configMap.data, ...fromSecret };
}

/** A named or numbered container port, as the kubelet and Services resolve it. */
function containerPort(container: IContainer, port: string | number | undefined): number | undefined {
  if (typeof port === 'number') return container.ports?.some((each) => each.containerPort === port) ? port : undefined;
  return container.ports?.find((each) => each.name === port)?.containerPort;
}

/** How long a preStop hook holds SIGTERM back: a `sleep` action, or node's setTimeout(…, ms). */
function preStopSeconds(container: IContainer): number {
  const preStop = container.lifecycle?.preStop;
  assert.ok(preStop !== undefined, `${container.name} has no preStop hook`);
  if (preStop.sleep !== undefined) return preStop.sleep.seconds;
  const command = preStop.exec?.command ?? [];
  assert.equal(command[0], 'node', 'the preStop exec runs node, the one program the image is sure to have');
  assert.equal(command[1], '-e');
  const script = command[2] ?? '';
  new Script(script); // throws on a syntax error: the hook would fail and SIGTERM would come at once
  const delay = /^setTimeout\(\s*\(\)\s*=>\s*\{\s*\}\s*,\s*(\d+)\s*\)$/.exec(script.trim());
  assert.ok(delay !== null, `the preStop script is a plain setTimeout: ${script}`);
  return Number(delay[1]) / 1000;
}

function effectiveImage(image: string): string {
  const kustomization = parseYamlFile(join(K8S_DIR, 'kustomization.yaml'))[0] as {
    images?: { name: string; newName?: string; newTag?: string; digest?: string }[];
  };
  const name = image.replace(/@.*$/, '').replace(/:[^:/]*$/, '');
  const override = kustomization.images?.find((entry) => entry.name === name);
  if (override === undefined) return image;
  const newName = override.newName ?? name;
  if (override.digest !== undefined) return `${newName}@${override.digest}`;
  return override.newTag !== undefined ? `${newName}:${override.newTag}` : `${newName}${image.slice(name.length)}`;
}

function isPinned(image: string): boolean {
  if (/@sha256:[0-9a-f]{64}$/.test(image)) return true;
  const tag = /:([^:/]+)$/.exec(image)?.[1];
  return tag !== undefined && tag !== 'latest' && /\d/.test(tag);
}

test('every manifest parses and passes its Kubernetes schema, with no field the schema lacks', () => {
  assert.ok(manifests.length >= 9, `found only ${manifests.length} manifests`);
  for (const { file, manifest } of manifests) {
    assert.ok(
      kindOf(manifest) !== undefined,
      `${file}: ${manifest.apiVersion} ${manifest.kind} is not a kind this test knows`,
    );
    assert.doesNotThrow(() => validateManifest(manifest), `${file}: ${manifest.kind} ${manifest.metadata?.name}`);
    assert.deepEqual(unknownFields(manifest), [], `${file}: fields the ${manifest.kind} schema does not define`);
    assert.match(manifest.metadata.name, DNS_LABEL, `${file}: the name must be a DNS label`);
    assert.equal(manifest.metadata.namespace, undefined, `${file}: manifests stay namespace-agnostic`);
    assert.equal(manifest.metadata.labels?.['app.kubernetes.io/part-of'], 'crypto-service', `${file}: part-of label`);
  }
});

test('the schema check rejects broken manifests: a string port, a number in a ConfigMap, a missing required field, an old API version, a misspelt field', () => {
  const broken = (mutate: (manifest: any) => void, source: Manifest = api as unknown as Manifest): Manifest => {
    const copy = structuredClone(source) as Manifest;
    mutate(copy);
    return copy;
  };
  assert.throws(
    () =>
      validateManifest(
        broken((m) => {
          m.spec.template.spec.containers[0].ports[0].containerPort = '3000';
        }),
      ),
    /containerPort must be integer/,
  );
  assert.throws(
    () =>
      validateManifest(
        broken(
          (m) => {
            m.data.PORT = 3000;
          },
          configMap as unknown as Manifest,
        ),
      ),
    /data\/PORT must be string/,
  );
  assert.throws(
    () =>
      validateManifest(
        broken(
          (m) => {
            delete m.spec.scaleTargetRef;
          },
          hpa as unknown as Manifest,
        ),
      ),
    /scaleTargetRef/,
  );
  assert.throws(
    () =>
      validateManifest(
        broken(
          (m) => {
            m.apiVersion = 'autoscaling/v2beta1';
          },
          hpa as unknown as Manifest,
        ),
      ),
    /no schema here/,
  );
  assert.deepEqual(
    unknownFields(
      broken((m) => {
        const container = m.spec.template.spec.containers[0];
        container.readinesProbe = container.readinessProbe;
        m.spec.template.spec.terminationGracePeriod = 60;
        m.spec.template.metadata.labels.tier = 'free-form labels are fine';
      }),
    ).sort(),
    ['/spec/template/spec/containers/0/readinesProbe', '/spec/template/spec/terminationGracePeriod'],
  );
});

test('kustomization.yaml lists every manifest but the example Secret, and no file twice', () => {
  const kustomization = parseYamlFile(join(K8S_DIR, 'kustomization.yaml'))[0] as {
    apiVersion: string;
    kind: string;
    resources: string[];
    namespace?: string;
  };
  assert.equal(kustomization.apiVersion, 'kustomize.config.k8s.io/v1beta1');
  assert.equal(kustomization.kind, 'Kustomization');
  assert.equal(kustomization.namespace, undefined, 'namespace-agnostic: kubectl apply -k … -n <namespace>');
  assert.equal(new Set(kustomization.resources).size, kustomization.resources.length);
  for (const resource of kustomization.resources)
    assert.ok(existsSync(join(K8S_DIR, resource)), `${resource} does not exist`);
  assert.deepEqual(
    [...kustomization.resources].sort(),
    manifestFiles().filter((file) => file !== SECRET_EXAMPLE),
  );
});

test('the ConfigMap and Secret are exactly variables the server reads, and load through its loadConfig', () => {
  const env = podEnvironment();
  const read = new Set<string>();
  const tracking = (source: Record<string, string>) =>
    new Proxy(source, {
      get(target, key, receiver) {
        if (typeof key === 'string') read.add(key);
        return Reflect.get(target, key, receiver);
      },
    });

  // The tracker itself: a variable the server does not know is never read.
  loadConfig(tracking({ ...env, RATE_LIMIT_MAXIMUM: '5' }));
  assert.equal(read.has('RATE_LIMIT_MAXIMUM'), false);

  read.clear();
  const config = loadConfig(tracking(env));
  const unread = Object.keys(env).filter((key) => !read.has(key));
  assert.deepEqual(unread, [], 'keys the server never reads (a typo, or a variable that does not exist)');
  assert.deepEqual(config.warnings, [], 'a production configuration starts without warnings');

  assert.equal(config.nodeEnv, 'production');
  assert.equal(config.host, '0.0.0.0');
  assert.equal(config.port, containerPort(apiContainer, 'http'));
  assert.ok(config.auth.apiKeys.length > 0 || config.auth.jwtSecrets.length > 0, 'authentication is on');
  assert.equal(config.auth.allowAnonymous, false);

  // The shared rate limit points at the Redis Service, by its in-namespace name, without a password
  // (a password would belong in the Secret, not the ConfigMap).
  assert.ok(config.rateLimit.redisUrl !== undefined, 'REDIS_URL is set');
  const redisUrl = new URL(config.rateLimit.redisUrl);
  assert.equal(redisUrl.hostname, redisService.metadata!.name);
  assert.equal(Number(redisUrl.port), redisService.spec!.ports![0]!.port);
  assert.equal(redisUrl.password, '');
});

test('credentials only in the Secret, as obvious placeholders, and the Deployment loads both by name', () => {
  const secretKeys = ['CRYPTO_API_KEY', 'JWT_SECRET', 'CRYPTO_KEY_PASSPHRASE'];
  for (const key of secretKeys) assert.equal(configMap.data?.[key], undefined, `${key} must not be in the ConfigMap`);
  assert.deepEqual(Object.keys(secret.stringData ?? {}).sort(), ['CRYPTO_API_KEY', 'JWT_SECRET']);
  for (const [key, value] of Object.entries(secret.stringData ?? {}))
    assert.match(value, /^REPLACE-ME/, `${key} must look like a placeholder`);

  const envFrom = apiContainer.envFrom ?? [];
  assert.deepEqual(
    envFrom.map((source) => source.configMapRef?.name ?? source.secretRef?.name),
    [configMap.metadata!.name, secret.metadata!.name],
  );
  // Not optional: without the Secret the pods do not start (fail closed), rather than run without auth.
  assert.ok(envFrom.every((source) => (source.configMapRef ?? source.secretRef)?.optional !== true));
});

test(
  'the probes ask routes that answer 200 without a credential, on the container port the server listens on',
  { timeout: 30_000 },
  async (t) => {
    const probes: [string, IProbe | undefined, string][] = [
      ['startupProbe', apiContainer.startupProbe, '/live'],
      ['livenessProbe', apiContainer.livenessProbe, '/live'],
      ['readinessProbe', apiContainer.readinessProbe, '/ready'],
    ];
    const config = loadConfig(podEnvironment());
    for (const [name, probe, path] of probes) {
      assert.equal(probe?.httpGet?.path, path, `${name} path`);
      assert.equal(containerPort(apiContainer, probe.httpGet.port), config.port, `${name} port`);
      assert.ok((probe.timeoutSeconds ?? 1) >= 3, `${name}: timeoutSeconds at least 3 on a busy node`);
    }
    const liveness = apiContainer.livenessProbe!;
    assert.ok((liveness.failureThreshold ?? 3) >= 3, 'liveness leaves slack before a restart');
    assert.ok(
      (liveness.periodSeconds ?? 10) * (liveness.failureThreshold ?? 3) >= 30,
      'at least 30 s of failures before a restart',
    );

    // The real app with the pod's configuration (authentication on): the kubelet sends no credential.
    // Without REDIS_URL: no Redis here, and the probes must not depend on where the counters live.
    const { REDIS_URL: _redisUrl, LOG_LEVEL: _logLevel, ...env } = podEnvironment();
    const app = await testApp(env);
    t.after(() => app.close());
    for (const [name, probe] of probes) {
      const response = await app.inject({ method: 'GET', url: probe!.httpGet!.path! });
      assert.equal(response.statusCode, 200, `${name} ${probe!.httpGet!.path}: ${response.body}`);
    }
    assert.equal(
      (await app.inject({ method: 'GET', url: '/v2/algorithms' })).statusCode,
      401,
      'and the API itself does need one',
    );
  },
);

test('the grace period covers the preStop pause, SHUTDOWN_TIMEOUT_MS and a margin', () => {
  const config = loadConfig(podEnvironment());
  const pause = preStopSeconds(apiContainer);
  const grace = podSpec(api).terminationGracePeriodSeconds ?? 30;
  assert.ok(pause >= 3 && pause <= 30, `a preStop pause of a few seconds (got ${pause})`);
  assert.ok(
    grace >= pause + config.shutdownTimeoutMs / 1000 + 5,
    `terminationGracePeriodSeconds ${grace} < preStop ${pause} s + SHUTDOWN_TIMEOUT_MS ${config.shutdownTimeoutMs / 1000} s + 5 s`,
  );
});

test('the Service selects the API pods only, and reaches them on port 80 through the named container port', () => {
  assert.equal(apiService.spec!.type ?? 'ClusterIP', 'ClusterIP');
  assert.ok(selects(apiService.spec!.selector, podLabels(api)));
  assert.equal(selects(apiService.spec!.selector, podLabels(redis)), false);
  const [port] = apiService.spec!.ports!;
  assert.equal(port!.port, 80);
  assert.equal(containerPort(apiContainer, port!.targetPort), 3000);

  const redisContainer = podSpec(redis).containers[0]!;
  assert.ok(selects(redisService.spec!.selector, podLabels(redis)));
  assert.equal(selects(redisService.spec!.selector, podLabels(api)), false);
  assert.equal(containerPort(redisContainer, redisService.spec!.ports![0]!.targetPort), 6379);
});

test('each Deployment selects its own pod template, and only its own', () => {
  for (const deployment of deployments) {
    assert.ok(selects(deployment.spec!.selector.matchLabels, podLabels(deployment)), deployment.metadata!.name);
    for (const other of deployments.filter((each) => each !== deployment)) {
      assert.equal(selects(deployment.spec!.selector.matchLabels, podLabels(other)), false);
    }
  }
});

test('the HPA scales the API Deployment on CPU from at least two replicas, and the Deployment leaves the count to it', () => {
  assert.deepEqual(hpa.spec!.scaleTargetRef, { apiVersion: 'apps/v1', kind: 'Deployment', name: api.metadata!.name });
  const min = hpa.spec!.minReplicas ?? 1;
  assert.ok(min >= 2, 'at least two replicas');
  assert.ok(hpa.spec!.maxReplicas > min);
  const cpu = hpa.spec!.metrics?.find((metric) => metric.type === 'Resource' && metric.resource?.name === 'cpu');
  assert.equal(cpu?.resource?.target.type, 'Utilization');
  assert.ok((cpu.resource.target.averageUtilization ?? 0) > 0);
  assert.ok(apiContainer.resources?.requests?.cpu !== undefined, 'utilisation is measured against the CPU request');
  // A replicas field would be re-applied on every `kubectl apply -k`, undoing the HPA's scale-out.
  assert.equal(api.spec!.replicas, undefined);
});

test('the PodDisruptionBudget covers the API pods and still lets a drain proceed', () => {
  assert.ok(selects(pdb.spec!.selector?.matchLabels, podLabels(api)));
  assert.equal(selects(pdb.spec!.selector?.matchLabels, podLabels(redis)), false);
  const { maxUnavailable, minAvailable } = pdb.spec!;
  assert.ok(maxUnavailable === 1 || minAvailable === 1, 'maxUnavailable 1 or minAvailable 1');
  // minAvailable must stay below the HPA's floor, or no pod could ever be evicted.
  if (typeof minAvailable === 'number') assert.ok(minAvailable < (hpa.spec!.minReplicas ?? 1));
});

test('API replicas spread over nodes, and never run below capacity during a rollout', () => {
  const spread = podSpec(api).topologySpreadConstraints ?? [];
  const byNode = spread.find((constraint) => constraint.topologyKey === 'kubernetes.io/hostname');
  const antiAffinity = podSpec(api).affinity?.podAntiAffinity;
  assert.ok(byNode !== undefined || antiAffinity !== undefined, 'a spread constraint or anti-affinity by node');
  for (const constraint of spread)
    assert.ok(selects(constraint.labelSelector?.matchLabels, podLabels(api)), constraint.topologyKey);
  assert.equal(api.spec!.strategy?.rollingUpdate?.maxUnavailable, 0);
});

test('every container runs as non-root, read-only, without privileges, with requests, limits and a pinned image', () => {
  const dockerfileUid = Number(/^USER\s+(\d+)/m.exec(readFileSync(join(K8S_DIR, '../Dockerfile'), 'utf8'))?.[1]);
  for (const deployment of deployments) {
    const pod = podSpec(deployment);
    assert.equal(pod.securityContext?.seccompProfile?.type, 'RuntimeDefault', `${deployment.metadata!.name}: seccomp`);
    assert.equal(pod.automountServiceAccountToken, false, `${deployment.metadata!.name}: no API token`);
    assert.equal(pod.hostNetwork ?? false, false);
    for (const container of [...(pod.initContainers ?? []), ...pod.containers]) {
      const where = `${deployment.metadata!.name}/${container.name}`;
      const security = container.securityContext ?? {};
      assert.equal(security.runAsNonRoot ?? pod.securityContext?.runAsNonRoot, true, `${where}: runAsNonRoot`);
      const uid: number | undefined = security.runAsUser ?? pod.securityContext?.runAsUser;
      assert.ok(uid !== undefined && uid > 0, `${where}: a numeric non-root uid the kubelet can check`);
      if (deployment === api) assert.equal(uid, dockerfileUid, `${where}: the same uid as the Dockerfile's USER`);
      assert.equal(security.allowPrivilegeEscalation, false, `${where}: allowPrivilegeEscalation`);
      assert.equal(security.readOnlyRootFilesystem, true, `${where}: readOnlyRootFilesystem`);
      assert.equal(security.privileged ?? false, false, `${where}: privileged`);
      assert.deepEqual(security.capabilities?.drop, ['ALL'], `${where}: drop ALL capabilities`);
      assert.deepEqual(security.capabilities?.add ?? [], [], `${where}: no capabilities added`);

      const { requests = {}, limits = {} } = container.resources ?? {};
      for (const resource of ['cpu', 'memory']) {
        assert.ok(
          requests[resource] !== undefined && limits[resource] !== undefined,
          `${where}: ${resource} request and limit`,
        );
        assert.ok(
          parseQuantity(requests[resource]) <= parseQuantity(limits[resource]),
          `${where}: ${resource} request <= limit`,
        );
      }
      const image = effectiveImage(container.image!);
      assert.ok(isPinned(image), `${where}: ${image} is not pinned to a version or digest`);
    }
  }
});

test('the API memory limit holds both work-queue budgets at once, per process, plus the process itself', () => {
  const config = loadConfig(podEnvironment());
  const budgets = config.workQueues.password.memoryBudgetBytes + config.workQueues.kdf.memoryBudgetBytes;
  // Room beyond the two budgets for the process itself, request bodies and the /v1 workers.
  const processOverhead = 256 * MIB;
  const memoryTmpfs = (podSpec(api).volumes ?? [])
    .filter((volume) => volume.emptyDir?.medium === 'Memory')
    .reduce((sum, volume) => sum + parseQuantity(volume.emptyDir!.sizeLimit ?? '0'), 0);
  const limit = parseQuantity(apiContainer.resources!.limits!.memory!);
  const needed = config.workers * (budgets + processOverhead) + memoryTmpfs;
  assert.ok(limit >= needed, `memory limit ${limit / MIB} MiB < ${needed / MIB} MiB for WORKERS=${config.workers}`);
  assert.equal(
    apiContainer.resources!.requests!.memory,
    apiContainer.resources!.limits!.memory,
    'memory request = limit: never scheduled where it cannot peak',
  );
});

test('Redis keeps the counters in memory only, and only the API pods may reach it', () => {
  const container = podSpec(redis).containers[0]!;
  assert.match(container.image!, /^redis:7\.\d+\.\d+/);
  assert.equal(redis.spec!.replicas, 1, 'one Redis: two would each hold half the counts');
  const args = [...(container.command ?? []), ...(container.args ?? [])];
  const valueOf = (flag: string) => {
    const index = args.indexOf(flag);
    return index === -1 ? undefined : args[index + 1];
  };
  assert.equal(valueOf('--save'), '', 'no RDB snapshots');
  assert.equal(valueOf('--appendonly'), 'no', 'no append-only file');
  assert.ok(valueOf('--maxmemory') !== undefined, 'a memory ceiling below the container limit');
  assert.ok(
    parseQuantity(valueOf('--maxmemory')!.replace(/mb$/, 'Mi')) < parseQuantity(container.resources!.limits!.memory!),
  );
  assert.ok(container.readinessProbe !== undefined && container.livenessProbe !== undefined, 'Redis probes');

  const policy = redisPolicy.spec!;
  assert.ok(selects(policy.podSelector!.matchLabels, podLabels(redis)));
  assert.deepEqual(policy.policyTypes, ['Ingress']);
  const rules = policy.ingress ?? [];
  assert.equal(rules.length, 1);
  const peers = rules[0]!.from ?? [];
  assert.ok(
    peers.length > 0 &&
      peers.every(
        (peer) => selects(peer.podSelector?.matchLabels, podLabels(api)) && peer.namespaceSelector === undefined,
      ),
  );
  assert.deepEqual(
    rules[0]!.ports?.map((port) => port.port),
    [containerPort(container, 'redis')],
  );
});
