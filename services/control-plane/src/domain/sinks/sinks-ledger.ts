import type { PrismaClient } from '@floe/db';
import { notFound } from '@floe/http';
import type { RollRecorded, RollReport, WorklistEntry } from '@floe/ingest';
import { readWorklist, recordRoll, sinkExists } from '@floe/ingest/ledger-store';

// Spec: the roller's internal routes, over the sink ledger's one owner
// (packages/ingest ledger-store.ts), which the roller itself records its rolls through.

export interface SinkLedgerDeps {
  prisma: PrismaClient;
}

/** The worklist as `GET /internal/sinks` serves it. */
export function rollerWorklist(d: SinkLedgerDeps): Promise<WorklistEntry[]> {
  return readWorklist(d.prisma);
}

/** Records a roll report on an existing sink: 404 `sink_not_found` otherwise. */
export async function recordSinkRoll(d: SinkLedgerDeps, sinkId: string, report: RollReport): Promise<{ sink_id: string } & RollRecorded> {
  if (!(await sinkExists(d.prisma, sinkId))) throw notFound('sink_not_found', `no sink ${sinkId}`);
  return { sink_id: sinkId, ...(await recordRoll(d.prisma, sinkId, report)) };
}
