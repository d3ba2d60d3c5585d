import { readWorklist } from '@floe/ingest/ledger-store';
import { sinkJobs } from '@floe/queues';
import type { RollerDeps } from './deps';

// The `sink-tick` job: every FLOE_ROLLER_TICK_MS, one roller for the whole
// cluster reads the ledger's worklist and queues a `sink-roll` job for each
// sink that is due. A BullMQ job scheduler makes the ticks; every roller
// upserts the same scheduler at start, so there is one tick however many run.

export interface TickState {
  /** Whether this roller's last tick could read the worklist (shown by its /healthz). */
  lastTickOk: boolean;
}

/** Queues a roll for each due sink (none while sinks are switched off); a sink already queued is not queued again. */
export async function handleTick(d: Pick<RollerDeps, 'config' | 'prisma' | 'producers' | 'logger'>, state: TickState): Promise<void> {
  try {
    const worklist = d.config.sinksEnabled ? await readWorklist(d.prisma) : [];
    for (const item of worklist) {
      if (!item.due) continue;
      await d.producers.enqueue(sinkJobs.roll, item);
    }
    state.lastTickOk = true;
  } catch (err) {
    state.lastTickOk = false;
    d.logger.warn('worklist unavailable', { err: (err as Error).message });
  }
}
