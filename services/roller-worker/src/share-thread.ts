import { Worker } from 'node:worker_threads';
import type { ShareResult, ShareTask } from './share-task';

// A second thread for large rolls: one roll on one thread used about one of
// the machine's cores, so a large roll hands part of its batches to this
// thread, which reads, maps and writes them as a second data file while the
// roll's own thread does the rest. Both files go into the roll's one append.
//
// The thread starts on first use and stays (its code warm). If it dies, the
// rolls waiting on it fail and are retried as any failed roll is; the next
// one starts it again.

type Waiting = { resolve: (r: ShareResult) => void; reject: (e: Error) => void };

/**
 * The worker's entry runs TypeScript: its loader is registered in the thread
 * first, as `--import tsx` does for the process (workers do not inherit it).
 * Both are resolved here, so the thread does not depend on the working directory.
 */
const ENTRY = `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then(({ register }) => { register(); return import(${JSON.stringify(new URL('./share-worker.ts', import.meta.url).href)}); })`;

export class ShareThread {
  private worker?: Worker;
  private nextId = 1;
  private readonly waiting = new Map<number, Waiting>();

  run(task: ShareTask): Promise<ShareResult> {
    const worker = this.worker ?? this.start();
    const id = this.nextId++;
    return new Promise<ShareResult>((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      worker.postMessage({ id, task });
    });
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    await worker?.terminate();
  }

  private start(): Worker {
    const worker = new Worker(ENTRY, { eval: true });
    worker.unref(); // never what keeps the process alive
    worker.on('message', (m: { id: number; result?: ShareResult; error?: { message: string; kind?: string } }) => {
      const w = this.waiting.get(m.id);
      if (!w) return;
      this.waiting.delete(m.id);
      if (m.result) w.resolve(m.result);
      else w.reject(Object.assign(new Error(`share thread: ${m.error?.message}`), { kind: m.error?.kind }));
    });
    const fail = (err: Error) => {
      if (this.worker === worker) this.worker = undefined;
      for (const w of this.waiting.values()) w.reject(new Error(`share thread stopped: ${err.message}`));
      this.waiting.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`exit ${code}`)));
    this.worker = worker;
    return worker;
  }
}
