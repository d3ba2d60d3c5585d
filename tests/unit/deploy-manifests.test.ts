// The deployment descriptions (Dockerfile, docker-compose.yml, k8s/) cannot be
// run on the development machines (no container engine), so this keeps them
// in step with the code statically:
//   - every deployable (a services/<name> folder with src/main.ts) has a
//     compose service and a k8s Deployment + Service with health probes, and
//     nothing is described that does not exist;
//   - every environment variable the manifests set is one packages/config reads,
//     and the settings as a whole pass loadConfig();
//   - internal URLs point at services and ports that are described;
//   - k8s/kustomization.yaml lists every manifest in k8s/;
//   - every k8s object is valid against the Kubernetes API's schemas (the
//     kubernetes-models package's validators, generated from the API's
//     OpenAPI documents; KEDA's objects against @kubernetes-models/keda, from
//     KEDA's CRDs), and a broken one fails the same validation. These check
//     types, required fields and formats (quantities, int-or-string), not
//     unknown fields: a misspelt optional field passes them, which is why the
//     fields that matter (probes, resources, scaling) are checked by name too;
//   - liveness never waits on a dependency where a process-only route exists,
//     every container has requests and limits, an engine's container has room
//     above its engines' memory limits (the query worker's: one per statement
//     it runs at once) and a scratch volume larger than the files it keeps,
//     every Deployment is autoscaled (HTTP services on CPU, queue workers by
//     KEDA on their BullMQ waiting lists, named from packages/queues and
//     BullMQ's own key layout; the query worker up to enough replicas for
//     every statement the control plane admits), and every Deployment that
//     runs two or more replicas has a PodDisruptionBudget.
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { QueueKeys } from 'bullmq';
import { parse, parseAllDocuments } from 'yaml';
import { loadConfig, type FloeConfig } from '@floe/config';
import * as queueDefinitions from '@floe/queues';

type Obj = Record<string, any>;

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const K8S = join(ROOT, 'k8s');
const read = (...p: string[]) => readFileSync(join(ROOT, ...p), 'utf8');

/** Deployables: folders under services/ that have an entry point. */
const DEPLOYABLES = existsSync(join(ROOT, 'services'))
  ? readdirSync(join(ROOT, 'services'), { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(ROOT, 'services', d.name, 'src', 'main.ts')))
    .map((d) => d.name)
    .sort()
  : [];

/** The package name of a deployable, which its start command filters on. */
function packageName(name: string): string {
  const file = join(ROOT, 'services', name, 'package.json');
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as { name: string }).name : `@floe/${name}`;
}

// packages/config is the one place that reads the environment; a name set in
// a manifest must appear in it.
const CONFIG_SOURCE = read('packages', 'config', 'src', 'index.ts');
const configReads = (name: string) => new RegExp(`\\b${name}\\b`).test(CONFIG_SOURCE);

// ---------------------------------------------------------------------------
// docker-compose.yml

const COMPOSE_SOURCE = read('docker-compose.yml');
const compose = parse(COMPOSE_SOURCE, { merge: true }) as Obj;
const composeServices: Record<string, Obj> = compose.services ?? {};

/** Services that run the Floe image (built from ./Dockerfile), as opposed to Postgres, Redis, ... */
const floeComposeServices = Object.entries(composeServices).filter(([, s]) => s.build !== undefined);
const MIGRATE = 'migrate';

function envMap(environment: unknown): Record<string, string> {
  if (!environment) return {};
  if (Array.isArray(environment)) {
    return Object.fromEntries(environment.map((e: string) => {
      const i = e.indexOf('=');
      return i < 0 ? [e, ''] : [e.slice(0, i), e.slice(i + 1)];
    }));
  }
  return Object.fromEntries(Object.entries(environment as Obj).map(([k, v]) => [k, v == null ? '' : String(v)]));
}

/** Names referenced as ${NAME}, ${NAME:-x}, ${NAME:?x} or $NAME (not $$). */
function interpolated(value: string): string[] {
  return [...value.matchAll(/(?<!\$)\$(?:\{([A-Za-z_][A-Za-z0-9_]*)[^}]*\}|([A-Za-z_][A-Za-z0-9_]*))/g)].map((m) => m[1] ?? m[2]);
}

/** A well-formed FLOE_DATA_KEYS, for settings that must pass loadConfig(). */
const TEST_DATA_KEYS = `test:${randomBytes(32).toString('base64')}`;

/** What compose would substitute when the required variables are set. */
function interpolate(value: string): string {
  return value.replace(/(?<!\$)\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?])([^}]*))?\}/g, (_m, name: string, op?: string, arg?: string) => {
    if (op && op.endsWith('-')) return arg ?? '';
    return name === 'FLOE_DATA_KEYS' ? TEST_DATA_KEYS : `test-value-of-${name}-0123456789abcdef`;
  });
}

const commandOf = (c: unknown): string => (Array.isArray(c) ? c.join(' ') : String(c ?? ''));

// ---------------------------------------------------------------------------
// k8s/

const K8S_FILES = readdirSync(K8S).filter((f) => /\.ya?ml$/.test(f)).sort();

function docsOf(file: string): Obj[] {
  return parseAllDocuments(readFileSync(join(K8S, file), 'utf8')).flatMap((doc) => {
    if (doc.errors.length) throw new Error(`${file}: ${doc.errors.map((e) => e.message).join('; ')}`);
    const js = doc.toJS() as Obj | null;
    return js ? [{ ...js, __file: file }] : [];
  });
}

const KUSTOMIZATION = 'kustomization.yaml';
const SECRET_EXAMPLE = 'secret.example.yaml';
const k8sObjects = K8S_FILES.filter((f) => f !== KUSTOMIZATION).flatMap(docsOf);
const kustomization = docsOf(KUSTOMIZATION)[0] ?? {};
const ofKind = (kind: string) => k8sObjects.filter((o) => o.kind === kind);
const named = (kind: string, name: string) => ofKind(kind).find((o) => o.metadata?.name === name);

const configMap = ofKind('ConfigMap').find((o) => o.metadata?.name === 'floe-config');
const secretExample = ofKind('Secret').find((o) => o.__file === SECRET_EXAMPLE);
const secretKeys = (s: Obj | undefined) => Object.keys({ ...(s?.data ?? {}), ...(s?.stringData ?? {}) });

function podSpec(o: Obj): Obj {
  return o.spec?.template?.spec ?? {};
}

function containerPort(container: Obj, port: number | string): number | undefined {
  if (typeof port === 'number') return (container.ports ?? []).some((p: Obj) => p.containerPort === port) ? port : undefined;
  return (container.ports ?? []).find((p: Obj) => p.name === port)?.containerPort;
}

/** Every container of an object with a pod template (Deployment, Job), init containers included. */
const containersOf = (o: Obj): Obj[] => [...(podSpec(o).containers ?? []), ...(podSpec(o).initContainers ?? [])];

/** The TypeScript sources of a deployable (tests left out). */
function sourcesOf(name: string): string {
  const dir = join(ROOT, 'services', name, 'src');
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
    .map((f) => readFileSync(join(dir, f), 'utf8'))
    .join('\n');
}


/** A deployable whose package depends on the data-plane engine (DuckDB) runs it in its own process. */
const runsEngine = (name: string) => {
  const file = join(ROOT, 'services', name, 'package.json');
  const pkg = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Obj) : {};
  return Object.keys(pkg.dependencies ?? {}).includes('@floe/engine');
};

// Kubernetes quantities (https://kubernetes.io/docs/reference/kubernetes-api/common-definitions/quantity/).
const QUANTITY_SUFFIX: Record<string, number> = {
  '': 1, m: 1e-3, k: 1e3, M: 1e6, G: 1e9, T: 1e12, Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40,
};
function quantity(value: unknown): number {
  const m = /^(\d+(?:\.\d+)?)(m|k|M|G|T|Ki|Mi|Gi|Ti)?$/.exec(String(value));
  if (!m) throw new Error(`not a quantity this test reads: ${String(value)}`);
  return Number(m[1]) * QUANTITY_SUFFIX[m[2] ?? ''];
}

// DuckDB's sizes (FLOE_ENGINE_MEMORY_LIMIT): KB, MB, GB, TB are powers of 1000, KiB... of 1024.
const DUCKDB_UNIT: Record<string, number> = {
  b: 1, kb: 1e3, mb: 1e6, gb: 1e9, tb: 1e12, kib: 2 ** 10, mib: 2 ** 20, gib: 2 ** 30, tib: 2 ** 40,
};
function duckdbBytes(size: string): number {
  const m = /^(\d+(?:\.\d+)?)\s*([a-z]+)$/i.exec(size.trim());
  if (!m || !(m[2].toLowerCase() in DUCKDB_UNIT)) throw new Error(`not a DuckDB size: ${size}`);
  return Number(m[1]) * DUCKDB_UNIT[m[2].toLowerCase()];
}

/** What a container needs above the engine's memory limit: Node's heap, the compiled sources, streams. */
const ENGINE_HEADROOM_BYTES = 512 * 2 ** 20;

/**
 * What a deployable's engines hold at once, as it reads its settings: one engine of FLOE_ENGINE_* for
 * compaction and the roller; for the query worker, FLOE_QUERY_WORKER_CONCURRENCY statements, each an
 * engine of its own (FLOE_QUERY_MEMORY_LIMIT, FLOE_QUERY_THREADS), and the table files it keeps on its
 * scratch volume (FLOE_QUERY_FILE_CACHE_BYTES).
 */
function engineDemand(name: string, config: FloeConfig): { memoryBytes: number; threads: number; keptBytes: number } {
  if (name === 'query-worker') {
    const q = config.query;
    return { memoryBytes: q.workerConcurrency * duckdbBytes(q.memoryLimit), threads: q.threads, keptBytes: q.fileCacheBytes };
  }
  return { memoryBytes: duckdbBytes(config.engine.memoryLimit), threads: config.engine.threads, keptBytes: 0 };
}

/** A deployable's pod spec, its one container, and the settings it runs with (ConfigMap, Secret, its own env; defaults included). */
function deployed(name: string): { spec: Obj; c: Obj; config: FloeConfig } {
  const spec = podSpec(named('Deployment', `floe-${name}`)!);
  const [c] = spec.containers as Obj[];
  const env = Object.fromEntries((c.env ?? []).map((e: Obj) => [e.name, e.value]));
  return { spec, c, config: loadConfig({ ...(configMap?.data ?? {}), ...(secretExample?.stringData ?? {}), FLOE_DATA_KEYS: TEST_DATA_KEYS, ...env }) };
}

// Schema validation. kubernetes-models ships one model per kind, each with a
// validator compiled from the API's OpenAPI schema (by ajv, at the package's
// build: nothing is fetched); @kubernetes-models/keda does the same for KEDA's
// CRDs. The module is found from the apiVersion, so a kind that neither
// package knows fails the test rather than going unchecked.
function modelModule(apiVersion: string): string {
  return apiVersion.startsWith('keda.sh/') ? `@kubernetes-models/keda/${apiVersion}` : `kubernetes-models/${apiVersion}`;
}
async function validateAgainstSchema(o: Obj): Promise<void> {
  const { __file: _file, ...doc } = o;
  const module = modelModule(String(doc.apiVersion));
  const models = (await import(module)) as Record<string, unknown>;
  const Model = models[String(doc.kind)] as (new (data: Obj) => { validate(): void }) | undefined;
  if (typeof Model !== 'function') throw new Error(`${module} has no model of kind ${String(doc.kind)}`);
  new Model(doc).validate();
}

// Autoscaling.
const WORKERS = DEPLOYABLES.filter((n) => n.endsWith('-worker'));
const HTTP_SERVICES = DEPLOYABLES.filter((n) => !WORKERS.includes(n));

const hpaOf = (deployment: string) => ofKind('HorizontalPodAutoscaler')
  .filter((h) => h.spec?.scaleTargetRef?.kind === 'Deployment' && h.spec?.scaleTargetRef?.name === deployment);
const scaledObjectOf = (deployment: string) => ofKind('ScaledObject')
  .filter((s) => (s.spec?.scaleTargetRef?.kind ?? 'Deployment') === 'Deployment' && s.spec?.scaleTargetRef?.name === deployment);

/** The fewest replicas a Deployment runs: its autoscaler's floor, else its own count. */
function minReplicas(d: Obj): number {
  const name = d.metadata.name as string;
  const [hpa] = hpaOf(name);
  if (hpa) return hpa.spec.minReplicas ?? 1;
  const [so] = scaledObjectOf(name);
  if (so) return so.spec.minReplicaCount ?? 0;
  return d.spec?.replicas ?? 1;
}

/** The PodDisruptionBudgets whose selector picks a Deployment's pods. */
const pdbsOf = (d: Obj) => ofKind('PodDisruptionBudget').filter((p) => {
  const sel = (p.spec?.selector?.matchLabels ?? {}) as Obj;
  const labels = (d.spec?.template?.metadata?.labels ?? {}) as Obj;
  return Object.keys(sel).length > 0 && Object.entries(sel).every(([k, v]) => labels[k] === v);
});

/** The BullMQ queues a worker consumes: the job definitions its src/jobs.ts hands to the runner. */
function consumedQueues(name: string): string[] {
  const source = read('services', name, 'src', 'jobs.ts');
  const defs = queueDefinitions as unknown as Record<string, Record<string, { queue?: string } | undefined> | undefined>;
  const queues = [...source.matchAll(/\bhandle\(\s*(\w+)\.(\w+)/g)].map(([, group, job]) => {
    const queue = defs[group]?.[job]?.queue;
    if (!queue) throw new Error(`services/${name}/src/jobs.ts: ${group}.${job} is no job definition of @floe/queues`);
    return queue;
  });
  return [...new Set(queues)].sort();
}

/** BullMQ's waiting list of a queue, for the deployment's FLOE_REDIS_PREFIX (packages/queues queuePrefix). */
function waitList(queue: string): string {
  const redisPrefix = String(configMap?.data?.FLOE_REDIS_PREFIX ?? 'floe:');
  return new QueueKeys(queueDefinitions.queuePrefix(redisPrefix)).toKey(queue, 'wait');
}

// ---------------------------------------------------------------------------

describe('deployables are described for compose and Kubernetes', () => {
  for (const name of DEPLOYABLES) {
    describe(name, () => {
      const start = `pnpm --filter ${packageName(name)} start`;

      test(`compose service "${name}" runs it, waits for migrations and has a /healthz healthcheck`, () => {
        const s = composeServices[name];
        expect(s).toBeDefined();
        expect(s.build).toBeDefined();
        expect(commandOf(s.command)).toBe(start);
        expect(s.depends_on?.[MIGRATE]?.condition).toBe('service_completed_successfully');
        const check = commandOf(s.healthcheck?.test);
        expect(check).toContain('/healthz');
        // The slim image has no curl or wget.
        expect(check).toMatch(/\bnode\b/);
        const port = envMap(s.environment)[`FLOE_${name.toUpperCase().replace(/-/g, '_')}_PORT`];
        if (port) expect(check).toContain(`:${port}/`);
      });

      test(`k8s Deployment floe-${name}: probes, non-root, env from the ConfigMap and Secret`, () => {
        const d = named('Deployment', `floe-${name}`);
        expect(d).toBeDefined();
        const spec = podSpec(d!);
        expect(spec.securityContext?.runAsNonRoot).toBe(true);
        expect(spec.containers).toHaveLength(1);
        const [c] = spec.containers as Obj[];
        // args, not command: the image's entrypoint (tini) must stay.
        expect(c.command).toBeUndefined();
        expect(commandOf(c.args)).toBe(start);
        expect(c.readinessProbe?.httpGet?.path).toBe('/healthz');
        expect(c.livenessProbe).toBeDefined();
        // Liveness must not restart a pod for a dependency's outage: every deployable serves a process-only
        // /livez (packages/http createApp), and liveness uses it; /healthz, which asks the dependencies, is the readiness.
        expect(c.livenessProbe?.httpGet?.path).toBe('/livez');
        for (const probe of [c.readinessProbe, c.livenessProbe, c.startupProbe].filter(Boolean)) {
          expect(containerPort(c, probe.httpGet.port)).toBeDefined();
        }
        expect(c.resources?.requests).toBeDefined();
        expect(c.resources?.limits).toBeDefined();
        const sources = (c.envFrom ?? []).map((e: Obj) => e.configMapRef?.name ?? e.secretRef?.name);
        expect(sources).toEqual(expect.arrayContaining(['floe-config', 'floe-secrets']));
        const port = configMap?.data?.[`FLOE_${name.toUpperCase().replace(/-/g, '_')}_PORT`];
        if (port) expect(containerPort(c, Number(port))).toBe(Number(port));
      });

      test(`k8s Service floe-${name} selects the Deployment's pods on a port they expose`, () => {
        const svc = named('Service', `floe-${name}`);
        const d = named('Deployment', `floe-${name}`);
        expect(svc).toBeDefined();
        expect(d).toBeDefined();
        const podLabels = d!.spec.template.metadata.labels as Obj;
        expect(Object.keys(svc!.spec.selector ?? {}).length).toBeGreaterThan(0);
        for (const [k, v] of Object.entries(svc!.spec.selector as Obj)) expect(podLabels[k]).toBe(v);
        expect(d!.spec.selector.matchLabels).toEqual(svc!.spec.selector);
        const [c] = podSpec(d!).containers as Obj[];
        for (const p of svc!.spec.ports as Obj[]) expect(containerPort(c, p.targetPort ?? p.port)).toBeDefined();
      });
    });
  }

  test('nothing is described that does not exist', () => {
    const floeNames = floeComposeServices.map(([n]) => n).filter((n) => n !== MIGRATE);
    expect(floeNames.filter((n) => !DEPLOYABLES.includes(n))).toEqual([]);
    const deployments = ofKind('Deployment').map((d) => d.metadata.name as string);
    expect(deployments.filter((n) => !DEPLOYABLES.map((x) => `floe-${x}`).includes(n))).toEqual([]);
  });

  test('migrations run as a one-shot compose service and a k8s Job', () => {
    expect(commandOf(composeServices[MIGRATE]?.command)).toBe('pnpm db:migrate');
    const job = named('Job', 'floe-migrate');
    expect(job).toBeDefined();
    const [c] = podSpec(job!).containers as Obj[];
    expect(commandOf(c.args)).toBe('pnpm db:migrate');
    expect(podSpec(job!).securityContext?.runAsNonRoot).toBe(true);
  });

  // db:migrate ends with the data migration that seals plaintext secrets: it needs the data keys, from the Secret.
  test('the migration gets the database and the data keys, the data keys from the Secret', () => {
    expect(Object.keys(envMap(composeServices[MIGRATE]?.environment)).sort()).toEqual(['DATABASE_URL', 'FLOE_DATA_KEYS']);
    const [c] = podSpec(named('Job', 'floe-migrate')!).containers as Obj[];
    const env = Object.fromEntries((c.env ?? []).map((e: Obj) => [e.name, e.valueFrom?.secretKeyRef]));
    expect(env).toEqual({
      DATABASE_URL: { name: 'floe-secrets', key: 'DATABASE_URL' },
      FLOE_DATA_KEYS: { name: 'floe-secrets', key: 'FLOE_DATA_KEYS' },
    });
  });
});

describe('environment variables are the ones packages/config reads', () => {
  test('compose: every variable set on, or interpolated into, a Floe service', () => {
    expect(floeComposeServices.length).toBeGreaterThan(0);
    const names = new Set<string>();
    for (const [, s] of floeComposeServices) {
      for (const [k, v] of Object.entries(envMap(s.environment))) {
        names.add(k);
        for (const ref of interpolated(v)) names.add(ref);
      }
    }
    expect([...names].filter((n) => !configReads(n))).toEqual([]);
  });

  test('compose: the bootstrap secret and the data keys are required from the caller, never written down', () => {
    expect(COMPOSE_SOURCE).toMatch(/\$\{FLOE_BOOTSTRAP_SECRET:\?[^}]+\}/);
    expect(COMPOSE_SOURCE).toMatch(/\$\{FLOE_DATA_KEYS:\?[^}]+\}/);
    for (const [name, s] of floeComposeServices) {
      expect({ name, dataKeys: envMap(s.environment).FLOE_DATA_KEYS }).toEqual({ name, dataKeys: expect.stringMatching(/^\$\{FLOE_DATA_KEYS:\?/) });
    }
  });

  test('k8s: ConfigMap keys, Secret keys and every container env name', () => {
    expect(configMap).toBeDefined();
    expect(secretExample).toBeDefined();
    const names = new Set<string>([...Object.keys(configMap!.data ?? {}), ...secretKeys(secretExample)]);
    for (const o of k8sObjects) {
      for (const c of [...(podSpec(o).containers ?? []), ...(podSpec(o).initContainers ?? [])] as Obj[]) {
        for (const e of c.env ?? []) names.add(e.name);
      }
    }
    expect([...names].filter((n) => !configReads(n))).toEqual([]);
    // Secrets stay out of the ConfigMap.
    expect(Object.keys(configMap!.data ?? {})).toEqual(expect.not.arrayContaining(['DATABASE_URL', 'REDIS_URL', 'FLOE_BOOTSTRAP_SECRET', 'FLOE_DATA_KEYS']));
    expect(secretKeys(secretExample).sort()).toEqual(['DATABASE_URL', 'FLOE_BOOTSTRAP_SECRET', 'FLOE_DATA_KEYS', 'REDIS_URL']);
  });

  test('Dockerfile: FLOE_* variables it sets', () => {
    const names = [...read('Dockerfile').matchAll(/\b(FLOE_[A-Z0-9_]+)=/g)].map((m) => m[1]);
    expect(names.filter((n) => !configReads(n))).toEqual([]);
  });

  test('the settings pass loadConfig() and bind every interface', () => {
    for (const [name, s] of floeComposeServices.filter(([n]) => n !== MIGRATE)) {
      const env = Object.fromEntries(Object.entries(envMap(s.environment)).map(([k, v]) => [k, interpolate(v)]));
      const config = loadConfig(env);
      expect({ name, listenHost: config.listenHost }).toEqual({ name, listenHost: '0.0.0.0' });
    }
    // The example's data key is a placeholder loadConfig refuses, so the example cannot be deployed as it stands.
    const k8sEnv = { ...(configMap?.data ?? {}), ...(secretExample?.stringData ?? {}) };
    expect(() => loadConfig(k8sEnv)).toThrow(/FLOE_DATA_KEYS/);
    expect(loadConfig({ ...k8sEnv, FLOE_DATA_KEYS: TEST_DATA_KEYS }).listenHost).toBe('0.0.0.0');
  });
});

describe('internal addresses point at what is described', () => {
  const internalUrls = (env: Record<string, string>) =>
    Object.entries(env).filter(([k]) => /^FLOE_.*_URL$/.test(k) && k !== 'FLOE_BASE_URL' && !/^FLOE_(CATALOG|S3|INGEST|MCP)_URL$/.test(k));

  test('compose: FLOE_*_URL upstreams name a compose service and the port it listens on', () => {
    for (const [, s] of floeComposeServices) {
      const env = envMap(s.environment);
      for (const [k, v] of internalUrls(env)) {
        const u = new URL(interpolate(v));
        const target = composeServices[u.hostname];
        expect({ [k]: v, exists: target !== undefined }).toEqual({ [k]: v, exists: true });
        const targetPort = envMap(target.environment)[`FLOE_${u.hostname.toUpperCase().replace(/-/g, '_')}_PORT`];
        if (targetPort) expect(u.port).toBe(targetPort);
      }
    }
  });

  test('k8s: FLOE_*_URL upstreams name a Service and one of its ports', () => {
    for (const [k, v] of internalUrls(configMap?.data ?? {})) {
      const u = new URL(v);
      const svc = named('Service', u.hostname.split('.')[0]);
      expect({ [k]: v, exists: svc !== undefined }).toEqual({ [k]: v, exists: true });
      expect((svc!.spec.ports as Obj[]).map((p) => String(p.port))).toContain(u.port || '80');
    }
  });
});

describe('k8s/', () => {
  test('kustomization.yaml lists every manifest except itself and the secret example', () => {
    const expected = K8S_FILES.filter((f) => f !== KUSTOMIZATION && f !== SECRET_EXAMPLE);
    expect([...(kustomization.resources ?? [])].sort()).toEqual(expected);
  });

  test('every object is labelled with its name and part-of floe, in the floe namespace', () => {
    for (const o of k8sObjects) {
      const where = `${o.__file} ${o.kind}/${o.metadata?.name}`;
      expect({ where, labels: o.metadata?.labels }).toEqual({
        where,
        labels: expect.objectContaining({ 'app.kubernetes.io/name': expect.any(String), 'app.kubernetes.io/part-of': 'floe' }),
      });
      if (o.kind !== 'Namespace') expect({ where, namespace: o.metadata?.namespace }).toEqual({ where, namespace: 'floe' });
      const template = o.spec?.template?.metadata?.labels;
      if (template) {
        expect({ where, template }).toEqual({
          where,
          template: expect.objectContaining({ 'app.kubernetes.io/name': expect.any(String), 'app.kubernetes.io/part-of': 'floe' }),
        });
      }
    }
  });
});

describe('k8s/: valid against the Kubernetes and KEDA schemas', () => {
  test.each(k8sObjects.map((o) => [`${o.__file} ${o.kind}/${o.metadata?.name}`, o] as const))('%s', async (_where, o) => {
    await expect(validateAgainstSchema(o)).resolves.toBeUndefined();
  });

  // The same validator, fed what would be refused by the API server: it must say no.
  test('a broken Deployment fails it: replicas "two"', async () => {
    const d = structuredClone(named('Deployment', 'floe-gateway')!);
    d.spec.replicas = 'two';
    await expect(validateAgainstSchema(d)).rejects.toThrow(/spec\/replicas must be integer/);
  });

  test('a broken Deployment fails it: a container without a name, a memory limit that is no quantity', async () => {
    const d = structuredClone(named('Deployment', 'floe-gateway')!);
    delete d.spec.template.spec.containers[0].name;
    await expect(validateAgainstSchema(d)).rejects.toThrow(/containers\/0 must have required property '?name'?/);
    const e = structuredClone(named('Deployment', 'floe-gateway')!);
    e.spec.template.spec.containers[0].resources.limits.memory = 'plenty';
    await expect(validateAgainstSchema(e)).rejects.toThrow(/limits\/memory must match format "quantity"/);
  });

  test('a broken ScaledObject fails KEDA\'s schema: a trigger without a type, a list length that is a number', async () => {
    const so = structuredClone(scaledObjectOf('floe-maintenance-worker')[0]);
    delete so.spec.triggers[0].type;
    await expect(validateAgainstSchema(so)).rejects.toThrow(/triggers\/0 must have required property/);
    const t = structuredClone(scaledObjectOf('floe-maintenance-worker')[0]);
    t.spec.triggers[0].metadata.listLength = 20;
    await expect(validateAgainstSchema(t)).rejects.toThrow(/listLength must be string/);
  });

  test('a kind neither package knows is an error, not a pass', async () => {
    await expect(validateAgainstSchema({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' } })).rejects.toThrow();
    await expect(validateAgainstSchema({ apiVersion: 'apps/v1', kind: 'Widget', metadata: { name: 'w' } })).rejects.toThrow(/no model of kind Widget/);
  });
});

describe('k8s/: resources, autoscaling and disruption budgets', () => {
  test('every container has CPU and memory requests and limits, each request within its limit', () => {
    const withPods = k8sObjects.filter((o) => o.spec?.template?.spec);
    expect(withPods.length).toBeGreaterThan(0);
    for (const o of withPods) {
      for (const c of containersOf(o)) {
        const where = `${o.__file} ${o.kind}/${o.metadata.name} ${c.name}`;
        for (const r of ['cpu', 'memory']) {
          const request = c.resources?.requests?.[r];
          const limit = c.resources?.limits?.[r];
          expect({ where, r, request: request !== undefined, limit: limit !== undefined }).toEqual({ where, r, request: true, limit: true });
          expect({ where, r, withinLimit: quantity(request) <= quantity(limit) }).toEqual({ where, r, withinLimit: true });
        }
      }
    }
  });

  test('a deployable that runs the engine: its scratch directory on a volume of its own, its memory limit above the engine\'s with headroom', () => {
    const engines = DEPLOYABLES.filter(runsEngine);
    expect(engines).toEqual(expect.arrayContaining(['maintenance-worker', 'query-worker', 'roller-worker']));
    for (const name of engines) {
      // The effective settings, defaults included, as the worker reads them.
      const { spec, c, config } = deployed(name);
      // The default (under the OS temp directory) is the 64 MiB /tmp volume here.
      expect({ name, scratchDir: config.engine.scratchDir }).toEqual({ name, scratchDir: expect.any(String) });
      const mounts = (c.volumeMounts ?? []) as Obj[];
      const scratch = mounts.find((m) => config.engine.scratchDir === m.mountPath || config.engine.scratchDir!.startsWith(`${m.mountPath}/`));
      expect({ name, scratchMount: scratch?.mountPath }).toEqual({ name, scratchMount: expect.not.stringMatching(/^\/tmp$/) });
      const demand = engineDemand(name, config);
      const limit = quantity(c.resources.limits.memory);
      expect({ name, limit, room: limit - demand.memoryBytes >= ENGINE_HEADROOM_BYTES }).toEqual({ name, limit, room: true });
      // An engine's threads fit the container's CPU limit.
      expect({ name, threadsFit: demand.threads <= quantity(c.resources.limits.cpu) }).toEqual({ name, threadsFit: true });
      // The scratch volume is bounded, and larger than the files kept on it.
      const volume = ((spec.volumes ?? []) as Obj[]).find((v) => v.name === scratch!.name);
      const size = quantity(volume?.emptyDir?.sizeLimit);
      expect({ name, size, room: size > demand.keptBytes }).toEqual({ name, size, room: true });
    }
  });

  test('an autoscaled Deployment leaves its replica count to the autoscaler', () => {
    for (const d of ofKind('Deployment')) {
      const scaled = hpaOf(d.metadata.name).length + scaledObjectOf(d.metadata.name).length > 0;
      if (scaled) expect({ deployment: d.metadata.name, replicas: d.spec.replicas }).toEqual({ deployment: d.metadata.name, replicas: undefined });
    }
  });

  test('the workers and the HTTP services between them are every deployable', () => {
    expect(WORKERS.length).toBeGreaterThan(0);
    expect(HTTP_SERVICES.length).toBeGreaterThan(0);
    // Each worker is a BullMQ consumer.
    for (const name of WORKERS) expect({ name, queues: consumedQueues(name).length > 0 }).toEqual({ name, queues: true });
  });

  for (const name of HTTP_SERVICES) {
    test(`${name}: a HorizontalPodAutoscaler on CPU, 2 replicas at least, and no ScaledObject`, () => {
      const hpas = hpaOf(`floe-${name}`);
      expect(hpas).toHaveLength(1);
      expect(scaledObjectOf(`floe-${name}`)).toHaveLength(0);
      const [hpa] = hpas;
      expect(hpa.apiVersion).toBe('autoscaling/v2');
      expect(hpa.spec.scaleTargetRef.apiVersion).toBe('apps/v1');
      expect(hpa.spec.minReplicas).toBeGreaterThanOrEqual(2);
      expect(hpa.spec.maxReplicas).toBeGreaterThan(hpa.spec.minReplicas);
      expect(hpa.spec.metrics).toEqual([{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: expect.any(Number) } } }]);
      const utilisation = hpa.spec.metrics[0].resource.target.averageUtilization as number;
      expect(utilisation).toBeGreaterThan(0);
      expect(utilisation).toBeLessThanOrEqual(100);
      // Utilisation is measured against the CPU request.
      for (const c of podSpec(named('Deployment', `floe-${name}`)!).containers as Obj[]) expect(c.resources?.requests?.cpu).toBeDefined();
    });
  }

  // KEDA's ScaledObject: its schema comes from @kubernetes-models/keda (above); what it scales on is checked here.
  for (const name of WORKERS) {
    test(`${name}: a KEDA ScaledObject on the waiting lists of queues it consumes, and no HorizontalPodAutoscaler of its own`, () => {
      const sos = scaledObjectOf(`floe-${name}`);
      expect(sos).toHaveLength(1);
      expect(hpaOf(`floe-${name}`)).toHaveLength(0);
      const [so] = sos;
      expect(so.apiVersion).toBe('keda.sh/v1alpha1');
      expect(so.spec.minReplicaCount).toBeGreaterThanOrEqual(1);
      expect(so.spec.maxReplicaCount).toBeGreaterThan(so.spec.minReplicaCount);
      const consumed = consumedQueues(name);
      const triggers = so.spec.triggers as Obj[];
      expect(triggers.length).toBeGreaterThan(0);
      const auths = ofKind('TriggerAuthentication').map((a) => a.metadata.name as string);
      for (const t of triggers) {
        expect(t.type).toBe('redis');
        const queue = consumed.find((q) => waitList(q) === t.metadata?.listName);
        expect({ name, listName: t.metadata?.listName, consumed: queue !== undefined }).toEqual({ name, listName: t.metadata?.listName, consumed: true });
        expect(t.metadata.listLength).toMatch(/^[1-9]\d*$/);
        // Where Redis is: from the TriggerAuthentication (address, password), never written here.
        expect(t.metadata.address ?? t.metadata.host ?? t.metadata.password).toBeUndefined();
        expect(auths).toContain(t.authenticationRef?.name);
      }
    });
  }

  // The control plane admits FLOE_QUERY_CONCURRENCY statements and previews at once across the deployment; the
  // waiting list, and so the ScaledObject, sees only those no worker has taken, so its ceiling must hold them all.
  test('query-worker: at its replica ceiling it runs every statement the deployment admits at once', () => {
    const { config } = deployed('query-worker');
    const [so] = scaledObjectOf('floe-query-worker');
    const capacity = so.spec.maxReplicaCount * config.query.workerConcurrency;
    expect({ capacity, admitted: capacity >= config.query.concurrency }).toEqual({ capacity, admitted: true });
  });

  test('the waiting lists are BullMQ\'s keys under the deployment\'s prefix', () => {
    expect(configMap?.data?.FLOE_REDIS_PREFIX).toBe('floe:');
    expect(waitList('maintenance')).toBe('floe:bull:maintenance:wait');
  });

  test('every Deployment that runs two or more replicas has a PodDisruptionBudget that lets one go at a time', () => {
    const multi = ofKind('Deployment').filter((d) => minReplicas(d) > 1);
    expect(multi.length).toBeGreaterThan(0);
    for (const d of multi) {
      const pdbs = pdbsOf(d);
      expect({ deployment: d.metadata.name, pdbs: pdbs.length }).toEqual({ deployment: d.metadata.name, pdbs: 1 });
      const { minAvailable, maxUnavailable } = pdbs[0].spec;
      expect({ deployment: d.metadata.name, ok: minAvailable === 1 || maxUnavailable === 1 }).toEqual({ deployment: d.metadata.name, ok: true });
    }
  });

  test('no PodDisruptionBudget blocks a drain of a Deployment that may run one replica', () => {
    for (const d of ofKind('Deployment').filter((x) => minReplicas(x) <= 1)) {
      for (const p of pdbsOf(d)) {
        expect({ deployment: d.metadata.name, minAvailable: p.spec.minAvailable ?? 0 }).toEqual({ deployment: d.metadata.name, minAvailable: 0 });
      }
    }
  });
});
