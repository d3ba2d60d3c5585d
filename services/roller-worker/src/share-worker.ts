import { parentPort } from 'node:worker_threads';
import { runShare, type ShareTask } from './share-task';

// The share thread's entry (see share-thread.ts). Tasks of concurrent rolls may overlap while
// one waits on the store; each answers under its own id.
parentPort!.on('message', (message: { id: number; task: ShareTask }) => {
  runShare(message.task).then(
    (result) => parentPort!.postMessage({ id: message.id, result }, result.written ? [result.written.bytes.buffer as ArrayBuffer] : []),
    (err: Error) => parentPort!.postMessage({ id: message.id, error: { message: err.message, kind: (err as { kind?: string }).kind } }),
  );
});
