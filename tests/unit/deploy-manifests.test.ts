// The deployment descriptions (Dockerfile, docker-compose.yml, k8s/) cannot be
// run on the development machines (no container engine), so this keeps them
// in step with the code statically:
//   - every deployable (a services/<name> folder with src/main.ts) has a
//     compose service and a k8s Deployment + Service with health probes, and
//     nothing is described that does not exist;
//   - every environment variable the manifests set is one packages/config reads,
//     and the settings as a whole pass loadConfig();
//   - internal URLs point at services and ports that are described;
//   - k8s/kustomization.yaml lists every manifest in k8s/.
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, parseAllDocuments } from 'yaml';
import { loadConfig } from '@floe/config';

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
        expect(['/healthz', '/livez']).toContain(c.livenessProbe?.httpGet?.path);
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
