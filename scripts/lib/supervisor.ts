// What keeps `npm start`'s deployables running: one that exits, by any code
// or signal (a crash, an out-of-memory kill, a stray `kill -9`), is started
// again after a pause that doubles with each restart, and the new pid is
// recorded. A deployable that fails to come up healthy several times in a
// row is given up on, and the caller stops the stack: it would only crash
// again, and a stack that quietly runs without it hides the fault.
//
// Only the foreground `npm start` supervises. A background stack
// (`npm run stack:up`) and the tests' private stacks are detached processes
// recorded by pid: fault tests kill deployables on purpose and run their own
// in their place, on the same ports, which a supervisor would fight.
import type { ChildProcess } from 'node:child_process';
import { exited, stopPid, waitHealthy, type Running } from './processes';

export const RESTART_POLICY = {
  /**
   * The pause before a deployable's first restart (FLOE_STACK_RESTART_PAUSE_MS,
   * 500 by default: a test that waits out five failed starts shortens it); it
   * doubles with each restart after it...
   */
  firstDelayMs: firstPauseMs(process.env),
  /** ...up to this. */
  maxDelayMs: 30_000,
  /** A deployable that stayed healthy this long before it exited starts over at the first pause. */
  stableMs: 60_000,
  /** How long a restarted deployable has to answer its health route. */
  healthSeconds: 60,
  /** Failed starts in a row (exited during start-up, or never healthy) after which the stack stops. */
  maxFailedStarts: 5,
};

function firstPauseMs(env: NodeJS.ProcessEnv): number {
  const set = env.FLOE_STACK_RESTART_PAUSE_MS;
  if (set === undefined || set === '') return 500;
  const ms = Number(set);
  if (!Number.isInteger(ms) || ms < 1) throw new Error(`FLOE_STACK_RESTART_PAUSE_MS is a whole number of milliseconds, not "${set}"`);
  return ms;
}

export interface GiveUp {
  name: string;
  log: string;
  /** Why the last start failed. */
  reason: string;
}

export interface SuperviseOptions {
  /** What the stack started, each healthy. */
  running: Running[];
  /** Starts the named deployable again in the stack's environment; `why` heads its part of the log. */
  relaunch: (name: string, why: string) => Running;
  /** A deployable runs under a new pid: record it where the stack is recorded. */
  recorded: (name: string, pid: number) => void;
  /** One console line (without the `[stack] ` prefix). */
  say: (line: string) => void;
  /** A deployable failed to come up RESTART_POLICY.maxFailedStarts times in a row; restarting has stopped. */
  gaveUp: (g: GiveUp) => void;
}

export interface Supervisor {
  /** Stops restarting, then stops every deployable (SIGTERM, SIGKILL after a grace period). */
  stop(): Promise<void>;
  /** The pids of the deployables now running. */
  pids(): number[];
}

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

interface Slot {
  name: string;
  current: Running;
  exit: Promise<Exit>;
  /** Restarts since the stack started (what the console counts). */
  restarts: number;
  /** Restarts since it last stayed healthy for stableMs (what the pause doubles with). */
  streak: number;
  failedStarts: number;
  healthySince: number | null;
  /** Ends the pause before a restart early, when the stack stops. */
  wake?: () => void;
}

function exitOf(child: ChildProcess): Promise<Exit> {
  // It may have exited before the supervisor looked: its exit event has fired already.
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
}

const how = (e: Exit) => (e.signal ? `signal ${e.signal}` : `code ${e.code}`);
const seconds = (ms: number) => `${ms / 1000} s`;

export function supervise(o: SuperviseOptions): Supervisor {
  let stopping = false;
  const slots: Slot[] = o.running.map((r) => {
    if (!r.child) throw new Error(`${r.name} is not a child of this process: it cannot be supervised`);
    return { name: r.name, current: r, exit: exitOf(r.child), restarts: 0, streak: 0, failedStarts: 0, healthySince: Date.now() };
  });

  const pause = (slot: Slot, ms: number) => new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    slot.wake = () => {
      clearTimeout(timer);
      resolve();
    };
  });

  const keep = async (slot: Slot): Promise<void> => {
    for (;;) {
      const exit = await slot.exit;
      if (stopping) return;
      if (slot.healthySince !== null && Date.now() - slot.healthySince >= RESTART_POLICY.stableMs) slot.streak = 0;
      const delay = Math.min(RESTART_POLICY.firstDelayMs * 2 ** slot.streak, RESTART_POLICY.maxDelayMs);
      slot.streak++;
      slot.restarts++;
      o.say(`${slot.name} exited (${how(exit)}); restarting in ${seconds(delay)} (restart ${slot.restarts})`);
      await pause(slot, delay);
      if (stopping) return;
      const r = o.relaunch(slot.name, `restart ${slot.restarts} after the last process exited (${how(exit)})`);
      slot.current = r;
      slot.exit = exitOf(r.child!);
      slot.healthySince = null;
      o.recorded(slot.name, r.pid);
      try {
        await waitHealthy(r, r.health, RESTART_POLICY.healthSeconds);
      } catch (err) {
        if (stopping) return;
        slot.failedStarts++;
        const reason = (err as Error).message;
        if (slot.failedStarts >= RESTART_POLICY.maxFailedStarts) {
          // Left as it is (exited, or stopped with the rest of the stack by the caller).
          o.gaveUp({ name: slot.name, log: r.log, reason });
          return;
        }
        o.say(`${slot.name} did not come up healthy (pid ${r.pid}: ${reason}): failed start ${slot.failedStarts} in a row, the stack stops at ${RESTART_POLICY.maxFailedStarts}`);
        // Alive but not answering: stopped, and its exit takes the loop round again.
        if (!exited(r)) await stopPid(r.pid);
        continue;
      }
      if (stopping) return;
      slot.failedStarts = 0;
      slot.healthySince = Date.now();
      o.say(`${slot.name} is healthy again (pid ${r.pid})`);
    }
  };
  for (const slot of slots) {
    void keep(slot).catch((err) => {
      // A fault of the supervisor itself, not of the deployable: give up on it loudly rather than leave it unwatched.
      if (!stopping) o.gaveUp({ name: slot.name, log: slot.current.log, reason: `supervising it failed: ${(err as Error).stack ?? err}` });
    });
  }

  return {
    async stop() {
      stopping = true;
      for (const slot of slots) slot.wake?.();
      await Promise.all(slots.filter((slot) => !exited(slot.current)).map((slot) => stopPid(slot.current.pid)));
    },
    pids() {
      return slots.filter((slot) => !exited(slot.current)).map((slot) => slot.current.pid);
    },
  };
}
