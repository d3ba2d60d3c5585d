// bench/auth: what authentication costs. Requests per second through the
// gateway for an authenticated GET /v1/api-keys (with an API key, and with a
// JWT) beside the same gateway's unauthenticated /healthz, measured in one run
// on one private stack. Target: authentication costs under 20% of throughput,
// i.e. each authenticated rate is at least 0.8 × the /healthz rate.
// BENCH_CPU_PROF=<dir> writes a CPU profile of every deployable there.
import autocannon from 'autocannon';
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

const { state, stateFile } = await startPrivateStack('bench', { FLOE_LOG_LEVEL: 'warn', ...(process.env.BENCH_CPU_PROF ? { FLOE_NODE_FLAGS: `--cpu-prof --cpu-prof-dir=${process.env.BENCH_CPU_PROF}` } : {}) });
try {
  const created = await fetch(`${state.services.identity.url}/internal/principals`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${state.bootstrap_secret}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ email: 'bench@example.com', label: 'bench' }),
  }).then((r) => r.json() as Promise<{ api_key: string }>);
  const token = await fetch(`${state.base_url}/v1/tokens`, {
    method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ api_key: created.api_key }),
  }).then((r) => r.json() as Promise<{ access_token: string }>);

  const rows = [
    await measure('GET /healthz (no auth)', `${state.base_url}/healthz`),
    await measure('GET /v1/api-keys with API key', `${state.base_url}/v1/api-keys`, { Authorization: `Bearer ${created.api_key}` }),
    await measure('GET /v1/api-keys with JWT', `${state.base_url}/v1/api-keys`, { Authorization: `Bearer ${token.access_token}` }),
  ];
  const base = rows[0].rps;
  console.log(`\nbench/auth — ${CONNECTIONS} connections, ${DURATION_S} s each, one run, through the gateway\n`);
  console.log(`${'route'.padEnd(34)}${'req/s'.padStart(10)}${'p50 ms'.padStart(9)}${'p99 ms'.padStart(9)}${'vs healthz'.padStart(12)}${'errors'.padStart(8)}`);
  for (const r of rows) {
    console.log(`${r.name.padEnd(34)}${r.rps.toFixed(0).padStart(10)}${String(r.p50).padStart(9)}${String(r.p99).padStart(9)}${(r.rps / base).toFixed(2).padStart(12)}${String(r.non2xx).padStart(8)}`);
  }
  const worst = Math.min(rows[1].rps, rows[2].rps) / base;
  console.log(`\nauthentication cost: ${((1 - worst) * 100).toFixed(1)}% of /healthz throughput (target < 20%): ${worst >= 0.8 ? 'met' : 'NOT met'}`);
} finally {
  await stopPrivateStack(stateFile);
}
