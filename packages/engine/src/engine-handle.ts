import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openEngine, type Engine, type EngineOptions } from './engine.js';

// A worker's one engine, opened on first use (many runs never need it) and
// closed with the process.

export interface EngineHandle {
  get(): Promise<Engine>;
  close(): Promise<void>;
}

/** The handle for a deployable's engine settings; `name` picks its default scratch directory under the OS temp directory. */
export function engineHandle(settings: Omit<EngineOptions, 'scratchDir'> & { scratchDir: string | null }, name: string): EngineHandle {
  const options = { ...settings, scratchDir: settings.scratchDir ?? join(tmpdir(), 'floe-engine', `${name}-${process.pid}`) };
  let opened: Promise<Engine> | null = null;
  return {
    get: () => (opened ??= openEngine(options)),
    async close() {
      const e = await opened?.catch(() => null);
      e?.close();
    },
  };
}
