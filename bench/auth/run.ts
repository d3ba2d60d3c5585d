// bench/auth: what authentication costs. Requests per second through the
// gateway for an authenticated GET /v1/api-keys (with an API key, and with a
// JWT) beside the same gateway's unauthenticated /healthz, measured in one run
// on one private stack. Target: authentication costs under 20% of throughput,
// i.e. each authenticated rate is at least 0.8 × the /healthz rate.
// It also measures password login and session refresh (closed loops of
// BENCH_CONNECTIONS clients, each refresh with its own rotating token) beside
// /healthz, and prints the argon2id cost chosen with the logins per second it
// allows on this machine's cores.
// BENCH_CPU_PROF=<dir> writes a CPU profile of every deployable there.
import { availableParallelism } from 'node:os';
import autocannon from 'autocannon';
import { ARGON2_COST, hashPassword } from '../../services/identity/src/domain/passwords';
import { startPrivateStack, stopPrivateStack } from '../../scripts/lib/private-stack';

const DURATION_S = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);

interface Row { name: string; rps: number; p50: number; p99: number; non2xx: number }

async function measure(name: string, url: string, headers: Record<string, string> = {}): Promise<Row> {
  // A short warm-up so JIT and connection pools are settled before counting.
  await autocannon({ url, headers, connections: CONNECTIONS, duration: 2 });
  const r = await autocannon({ url, headers, connections: CONNECTIONS, duration: DURATION_S });
  return { name, rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx + r.errors };
}

const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify(body) });

/** `clients` loops for DURATION_S seconds, each making one request after another; requests/s and latency percentiles of the successes. */
async function closedLoop(name: string, clients: Array<() => Promise<boolean>>): Promise<Row> {
  const until = Date.now() + DURATION_S * 1000;
  const latencies: number[] = [];
  let failures = 0;
  await Promise.all(clients.map(async (one) => {
    while (Date.now() < until) {
      const t0 = performance.now();
      if (await one()) latencies.push(performance.now() - t0);
      else failures += 1;
    }
  }));
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => Math.round(latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] ?? 0);
  return { name, rps: latencies.length / DURATION_S, p50: pct(0.5), p99: pct(0.99), non2xx: failures };
}

// The login limit per caller address is the spec's 120 an hour; every bench client shares one address.
const { state, stateFile } = await startPrivateStack('bench', { FLOE_LOG_LEVEL: 'warn', FLOE_LOGIN_ATTEMPTS_PER_HOUR: '100000000', ...(process.env.BENCH_CPU_PROF ? { FLOE_NODE_FLAGS: `--cpu-prof --cpu-prof-dir=${process.env.BENCH_CPU_PROF}` } : {}) });
try {
  const created = await fetch(`${state.services.identity.url}/internal/principals`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${state.bootstrap_secret}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ email: 'bench@example.com', label: 'bench' }),
  }).then((r) => r.json() as Promise<{ api_key: string }>);
  const token = await fetch(`${state.base_url}/v1/tokens`, {
    method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ api_key: created.api_key }),
  }).then((r) => r.json() as Promise<{ access_token: string }>);

  // A person with a password: password sign-up, the link read from the stack's development look-up.
  const email = 'bench-person@example.com';
  const password = 'a bench passphrase of some length';
  await post(`${state.base_url}/v1/auth/signup`, { email, full_name: 'Bench', organization_name: 'Bench Org', handle: 'bench-org' });
  const link = await fetch(`${state.services.identity.url}/internal/login-tokens/${email}`, { headers: { Authorization: `Bearer ${state.bootstrap_secret}` } })
    .then((r) => r.json() as Promise<{ token: string }>);
  const set = await post(`${state.base_url}/v1/auth/password/set`, { token: link.token, password });
  if (set.status !== 200) throw new Error(`setting the bench person's password failed: ${set.status} ${await set.text()}`);
  const login = async () => {
    const r = await post(`${state.base_url}/v1/auth/login`, { email, password });
    return r.status === 200 ? (await r.json()) as { refresh_token: string } : (await r.text(), null);
  };

  const rows = [
    await measure('GET /healthz (no auth)', `${state.base_url}/healthz`),
    await measure('GET /v1/api-keys with API key', `${state.base_url}/v1/api-keys`, { Authorization: `Bearer ${created.api_key}` }),
    await measure('GET /v1/api-keys with JWT', `${state.base_url}/v1/api-keys`, { Authorization: `Bearer ${token.access_token}` }),
    await closedLoop('POST /v1/auth/login', Array.from({ length: CONNECTIONS }, () => async () => (await login()) !== null)),
  ];
  const refreshTokens = await Promise.all(Array.from({ length: CONNECTIONS }, async () => (await login())!.refresh_token));
  rows.push(await closedLoop('POST /v1/auth/refresh', refreshTokens.map((first) => {
    let current = first;
    return async () => {
      const r = await post(`${state.base_url}/v1/auth/refresh`, { refresh_token: current });
      if (r.status !== 200) return (await r.text(), false);
      current = ((await r.json()) as { refresh_token: string }).refresh_token;
      return true;
    };
  })));

  const hashes: number[] = [];
  for (let i = 0; i < 10; i++) {
    const t0 = performance.now();
    await hashPassword(password);
    hashes.push(performance.now() - t0);
  }
  hashes.sort((a, b) => a - b);
  const hashMs = hashes[5];
  const base = rows[0].rps;
  console.log(`\nbench/auth — ${CONNECTIONS} connections, ${DURATION_S} s each, one run, through the gateway\n`);
  console.log(`${'route'.padEnd(34)}${'req/s'.padStart(10)}${'p50 ms'.padStart(9)}${'p99 ms'.padStart(9)}${'vs healthz'.padStart(12)}${'errors'.padStart(8)}`);
  for (const r of rows) {
    console.log(`${r.name.padEnd(34)}${r.rps.toFixed(0).padStart(10)}${String(r.p50).padStart(9)}${String(r.p99).padStart(9)}${(r.rps / base).toFixed(2).padStart(12)}${String(r.non2xx).padStart(8)}`);
  }
  const cores = availableParallelism();
  console.log(`\nargon2id cost: m=${ARGON2_COST.memoryCost} KiB, t=${ARGON2_COST.timeCost}, p=${ARGON2_COST.parallelism}: ${hashMs.toFixed(1)} ms per hash, median of 10 in this process (target ≥ 50 ms): ${hashMs >= 50 ? 'met' : 'NOT met'}`);
  console.log(`logins per second it allows on ${cores} cores: about ${((cores * 1000) / hashMs).toFixed(0)} (measured through the gateway above: ${rows[3].rps.toFixed(0)})`);
  const worst = Math.min(rows[1].rps, rows[2].rps) / base;
  console.log(`\nauthentication cost: ${((1 - worst) * 100).toFixed(1)}% of /healthz throughput (target < 20%): ${worst >= 0.8 ? 'met' : 'NOT met'}`);
} finally {
  await stopPrivateStack(stateFile);
}
