import { spawn } from 'node:child_process';
import { freePort } from '../../scripts/lib/infra';
import { stopPid } from '../../scripts/lib/processes';
import { ROOT } from '../../scripts/lib/stack-env';

// A worker process of its own for a fault test (the roller, the teardown
// worker): started from its sources with the given environment and a free
// health port; `exited` resolves with its exit code once it stops.
export interface WorkerProcess {
  exited: Promise<number | null>;
  /** Where its health answers. */
  port: Promise<number>;
  stop: () => Promise<void>;
  readonly pid: number;
}

/** `port` for the port setting, when it must stay the same across restarts (else a free one). */
export function startWorkerProcess(entry: string, healthPortSetting: string, env: NodeJS.ProcessEnv, port?: number): WorkerProcess {
  const portPromise = port === undefined ? freePort() : Promise.resolve(port);
  let pid = 0;
  const exited = portPromise.then((port) => new Promise<number | null>((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', entry], { cwd: ROOT, env: { ...env, [healthPortSetting]: String(port) }, stdio: 'ignore' });
    pid = child.pid!;
    child.on('exit', (code) => resolve(code));
  }));
  return { exited, port: portPromise, stop: async () => { await portPromise; if (pid) await stopPid(pid); await exited; }, get pid() { return pid; } };
}
