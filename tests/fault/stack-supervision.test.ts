// `npm start` supervises its deployables. Each deployable, SIGKILLed once
// while callers use the API, is started again on its port under a new pid,
// the stack's record (stack.json) follows it, and the restart is printed;
// Ctrl-C then stops everything, the restarted processes too, and restarts
// nothing on the way down. A deployable that cannot come up (its port taken
// by another process) five times in a row stops the whole stack, which exits
// non-zero naming it and its log.
//
// Runs `scripts/stack.ts start` itself, the code `npm start` runs, in the
// foreground on a private stack's settings (private stacks proper are not
// supervised: see scripts/lib/private-stack.ts). The two tests run at once,
// each on a stack of its own: most of either is waiting on its own processes
// (a stack's start, restarts, the supervisor's pauses), and neither needs the
// other's to be over.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import net from 'node:net';
import { relative } from 'node:path';
import { DEPLOYABLES } from '../../scripts/lib/deployables';
import { privateStackPlan, removePrivateStack, type PrivateStackPlan } from '../../scripts/lib/private-stack';
import { alive, healthy } from '../../scripts/lib/processes';
import { readState, type StackState } from '../../scripts/lib/stack';
import { ROOT, stackPaths } from '../../scripts/lib/stack-env';
import { until } from '../support/poll';
import { orgAdminKey } from '../support/stack-org';

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

interface ForegroundStack {
  plan: PrivateStackPlan;
  child: ChildProcess;
  exit: Promise<Exit>;
  /** Everything it printed so far, stdout and stderr. */
  output(): string;
  /** Its stack.json as it is now. */
  state(): StackState;
  /** Stops it if it still runs, kills anything it recorded that still runs, removes its database, keys and files. */
  remove(): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function within<T>(what: string, p: Promise<T>, seconds: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new Error(`timed out after ${seconds} s waiting for ${what}`)), seconds * 1000); });
  try {
    return await Promise.race([p, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** The ports of the stacks this file runs at once: plans made at the same time can be handed one free port twice. */
const portsPlanned = new Set<string>();

/** A private stack's settings whose ports are none of another stack's of this file. */
async function planOwnPorts(label: string, extraEnv: NodeJS.ProcessEnv): Promise<PrivateStackPlan> {
  for (;;) {
    const plan = await privateStackPlan(label, { FLOE_LOG_LEVEL: 'warn', ...extraEnv });
    const ports = Object.entries(plan.env).filter(([k, v]) => k.endsWith('_PORT') && v !== process.env[k]).map(([, v]) => v!);
    if (ports.some((p) => portsPlanned.has(p))) continue;
    for (const p of ports) portsPlanned.add(p);
    return plan;
  }
}

/** `npm start`'s own process (`tsx scripts/stack.ts start`) on a private stack's settings and `extraEnv`; resolves once it printed `Floe is up.`. */
async function startForeground(label: string, extraEnv: NodeJS.ProcessEnv = {}): Promise<ForegroundStack> {
  const plan = await planOwnPorts(label, extraEnv);
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/stack.ts', 'start'], { cwd: ROOT, env: plan.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (c: Buffer) => { out += c.toString('utf8'); });
  child.stderr!.on('data', (c: Buffer) => { out += c.toString('utf8'); });
  let ended = false;
  const exit = new Promise<Exit>((resolve) => child.once('exit', (code, signal) => {
    ended = true;
    resolve({ code, signal });
  }));
  let last: StackState | null = null;
  const paths = stackPaths(plan.env.FLOE_DATA_DIR);
  const stack: ForegroundStack = {
    plan,
    child,
    exit,
    output: () => out,
    state: () => {
      const s = readState(paths);
      if (!s) throw new Error(`no ${plan.stateFile}; the stack printed:\n${out}`);
      last = s;
      return s;
    },
    remove: async () => {
      if (!ended) {
        child.kill('SIGTERM');
        await within('the stack to stop', exit, 90).catch(() => child.kill('SIGKILL'));
      }
      const recorded = readState(paths) ?? last;
      for (const s of Object.values(recorded?.services ?? {})) if (alive(s.pid)) process.kill(s.pid, 'SIGKILL');
      await removePrivateStack(plan, process.env.FLOE_E2E_KEEP_LOGS === '1');
    },
  };
  try {
    await until('the stack to print "Floe is up."', async () => {
      if (ended) throw new Error(`the stack exited during start-up:\n${out}`);
      return out.includes('Floe is up.') ? true : null;
    }, 240, 250);
    stack.state();
  } catch (err) {
    await stack.remove();
    throw err;
  }
  return stack;
}

/** Callers using the API through the gateway while deployables die, a few calls at a time. */
function startLoad(baseUrl: string, key: string): { stop: () => Promise<{ ok: number; failed: number }> } {
  let running = true;
  const counts = { ok: 0, failed: 0 };
  const caller = async (path: string) => {
    while (running) {
      try {
        const res = await fetch(`${baseUrl}${path}`, { headers: { Authorization: `Bearer ${key}` }, signal: AbortSignal.timeout(5000) });
        await res.arrayBuffer();
        if (res.status === 200) counts.ok++;
        else counts.failed++;
      } catch {
        counts.failed++;
      }
      await sleep(150);
    }
  };
  const callers = [caller('/v1/warehouses'), caller('/v1/warehouses'), caller('/v1/projects')];
  return { stop: async () => { running = false; await Promise.all(callers); return counts; } };
}

/** Listens on `port` (as soon as the dead process's socket is gone), accepting and dropping every connection. */
async function occupy(port: number): Promise<net.Server> {
  return until(`port ${port} to be free to take`, () => new Promise<net.Server | null>((resolve) => {
    const srv = net.createServer((socket) => socket.destroy());
    srv.once('error', () => resolve(null));
    srv.listen(port, '127.0.0.1', () => resolve(srv));
  }), 10, 10);
}

const health = (name: string) => DEPLOYABLES.find((d) => d.name === name)!.health;

test.concurrent('each deployable SIGKILLed once under load comes back healthy on its port under a new pid, recorded and printed; Ctrl-C then stops everything', async () => {
  const stack = await startForeground('supervise');
  try {
    const names = Object.keys(stack.state().services);
    expect(names).toEqual(expect.arrayContaining(['mail', 'identity-provider', 'identity', 'catalog', 'control-plane', 'ingest-gateway', 'mcp-server', 'roller-worker', 'metering-worker', 'maintenance-worker', 'query-worker', 'teardown-worker', 'gateway']));
    expect(stack.state().supervisor_pid).toBe(stack.child.pid);
    const key = await orgAdminKey(stack.state(), 'supervise');
    const load = startLoad(stack.state().base_url, key);
    let counts: { ok: number; failed: number };
    try {
      // All at once (a host's bad minute), each SIGKILLed once: every one comes back by itself.
      const before = Object.fromEntries(names.map((name) => [name, stack.state().services[name]]));
      for (const name of names) process.kill(before[name].pid, 'SIGKILL');
      await Promise.all(names.map(async (name) => {
        const after = await until(`${name} to come back under a new pid`, async () => {
          const now = stack.state().services[name];
          return now.pid !== before[name].pid && alive(now.pid) && (await healthy(now.url + health(name))) ? now : null;
        }, 120, 200);
        expect(after.url).toBe(before[name].url);
        expect(alive(before[name].pid)).toBe(false);
        expect(stack.output()).toContain(`[stack] ${name} exited (signal SIGKILL); restarting in 0.5 s (restart 1)\n`);
        await until(`the stack to print that ${name} is healthy again`, async () => (stack.output().includes(`[stack] ${name} is healthy again (pid ${after.pid})\n`) ? true : null), 10, 100);
      }));
      // Every deployable back: the API answers through the gateway again.
      await until('the API to answer', async () => ((await fetch(`${stack.state().base_url}/v1/warehouses`, { headers: { Authorization: `Bearer ${key}` } })).status === 200 ? true : null), 60, 250);
    } finally {
      counts = await load.stop();
    }
    expect(counts.ok).toBeGreaterThan(0);

    // Ctrl-C: everything stops, the restarted processes too; nothing restarts on the way down; the record is removed.
    const pids = Object.values(stack.state().services).map((s) => s.pid);
    expect(pids.every(alive)).toBe(true);
    const printed = stack.output().length;
    stack.child.kill('SIGINT');
    expect(await within('the stack to stop', stack.exit, 90)).toEqual({ code: 0, signal: null });
    const onTheWayDown = stack.output().slice(printed);
    expect(onTheWayDown).toContain('[stack] stopping');
    expect(onTheWayDown).not.toContain('restarting');
    expect(pids.filter(alive)).toEqual([]);
    expect(existsSync(stack.plan.stateFile)).toBe(false);
  } finally {
    await stack.remove();
  }
}, 600_000);

test.concurrent('a deployable that fails to come up five times in a row stops the stack, which exits non-zero naming it and its log', async () => {
  // The first pause 100 ms, not 0.5 s (the other test sees the default): the five pauses are most of the wait.
  const stack = await startForeground('supervise-fail', { FLOE_STACK_RESTART_PAUSE_MS: '100' });
  let squatter: net.Server | undefined;
  try {
    const pids = Object.values(stack.state().services).map((s) => s.pid);
    const victim = stack.state().services['teardown-worker'];
    // Its port taken by another process the moment it dies: every start after exits at once (it cannot listen).
    process.kill(victim.pid, 'SIGKILL');
    squatter = await occupy(Number(new URL(victim.url).port));
    expect(await within('the stack to give up', stack.exit, 180)).toEqual({ code: 1, signal: null });

    const out = stack.output();
    // The pause doubles: 0.1, 0.2, 0.4, 0.8, 1.6 s.
    expect(out).toContain('[stack] teardown-worker exited (signal SIGKILL); restarting in 0.1 s (restart 1)\n');
    expect(out).toContain('[stack] teardown-worker exited (code 1); restarting in 0.2 s (restart 2)\n');
    expect(out).toContain('[stack] teardown-worker exited (code 1); restarting in 0.4 s (restart 3)\n');
    expect(out).toContain('[stack] teardown-worker exited (code 1); restarting in 0.8 s (restart 4)\n');
    expect(out).toContain('[stack] teardown-worker exited (code 1); restarting in 1.6 s (restart 5)\n');
    expect(out).not.toContain('(restart 6)');
    expect(out).toContain('[stack] teardown-worker failed to come up healthy 5 times in a row (the last time: teardown-worker exited during start-up); stopping the stack.\n');
    expect(out).toContain(`[stack] teardown-worker's log is ${relative(ROOT, victim.log)}; its last lines:\n`);
    // The log's last lines say why.
    expect(out).toContain('teardown-worker cannot listen');
    // Everything stopped, and the record removed.
    expect(pids.filter(alive)).toEqual([]);
    expect(existsSync(stack.plan.stateFile)).toBe(false);
  } finally {
    squatter?.close();
    await stack.remove();
  }
}, 600_000);
