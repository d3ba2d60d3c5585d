import { randomBytes } from 'node:crypto';
import { type AccessContext, atLeast, requireLevel } from '@floe/accounts';
import { resolveWarehouse, visibleWarehouses, type VisibleWarehouse } from '@floe/catalogs';
import { generateSendKey } from '@floe/auth';
import type { PrismaClient } from '@floe/db';
import { conflict, notFound } from '@floe/http';
import { defaultSpec, toTableMetadata } from '@floe/iceberg';
import { insertSink, markSinkDeleted } from '@floe/ingest/sink-store';
import { sinksClashing, sinksOf, type SinkRecord } from '../../store/sinks';
import type { catalogTables } from '../tables/catalog-tables';

// Spec: Ingest sinks — the records: create (one sink per unpartitioned
// table, a send key shown once), list, find by id or name, delete (the send
// key is refused at once; waiting batches are discarded by the roller).

/** What the sink functions read and write: warehouses, levels and sink rows. */
export interface SinkDeps {
  prisma: PrismaClient;
}

/** A sink by id or name among the catalogs the caller holds `level` on. */
export async function resolveSink(d: SinkDeps, ctx: AccessContext, idOrName: string, level: 'read' | 'write'): Promise<{ sink: SinkRecord; w: VisibleWarehouse }> {
  const warehouses = await visibleWarehouses(d.prisma, ctx);
  const byId = new Map(warehouses.filter((w) => atLeast(w.access.level, 'read')).map((w) => [w.id, w]));
  const found = await sinksOf(d.prisma, { warehouseIds: [...byId.keys()], idOrName });
  const exact = found.find((s) => s.id === idOrName);
  if (!exact && found.length > 1) {
    throw conflict('ambiguous_name', `${found.length} sinks are named ${idOrName}; use a sink_id`, {
      candidates: found.map((s) => ({ sink_id: s.id, name: s.name, warehouse_id: s.warehouseId, warehouse_name: byId.get(s.warehouseId)!.name })),
    });
  }
  const sink = exact ?? found[0];
  if (!sink) throw notFound('sink_not_found', `no sink with id or name ${JSON.stringify(idOrName)}`);
  const w = byId.get(sink.warehouseId)!;
  await requireLevel(d.prisma, w, level, level === 'write' ? 'changing a sink' : 'reading a sink');
  return { sink, w };
}

/** The sinks of one named catalog (read level needed) or of every catalog the caller reads, each with its catalog. */
export async function listSinks(d: SinkDeps, ctx: AccessContext, which: string | null, includeDeleted: boolean): Promise<Array<{ sink: SinkRecord; w: VisibleWarehouse }>> {
  const warehouses = which ? [await resolveWarehouse(d.prisma, ctx, which)] : await visibleWarehouses(d.prisma, ctx);
  const readable = warehouses.filter((w) => atLeast(w.access.level, 'read'));
  if (which && !readable.length) await requireLevel(d.prisma, warehouses[0], 'read', 'listing sinks');
  const byId = new Map(readable.map((w) => [w.id, w]));
  const sinks = await sinksOf(d.prisma, { warehouseIds: [...byId.keys()], includeDeleted });
  return sinks.map((sink) => ({ sink, w: byId.get(sink.warehouseId)! }));
}

/** What the sink functions read of a catalog's tables. */
export type SinkTables = Pick<ReturnType<typeof catalogTables>, 'load'>;

/**
 * A sink's table exists and is unpartitioned (at creation, and when a sink
 * disabled for its missing table is enabled again): the table's not-found
 * refusals as the catalog routes answer them, or 409 `partitioned_table_unsupported`.
 */
export async function requireAppendableTable(tables: SinkTables, w: VisibleWarehouse, namespace: string, tableName: string): Promise<void> {
  const table = `${namespace}.${tableName}`;
  const loaded = await tables.load(w, namespace, tableName);
  if (defaultSpec(toTableMetadata(loaded.metadata)).fields.length > 0) {
    throw conflict('partitioned_table_unsupported', `${table} is partitioned; a sink appends to unpartitioned tables only`, { table });
  }
}

export interface NewSinkAsk {
  name: string;
  namespace: string;
  tableName: string;
  rollSeconds: number;
  rollBytes: number;
  inactivitySeconds: number | null;
  createdBy: string;
}

/**
 * Creates a sink on an unpartitioned table of a catalog the caller writes:
 * 409 `partitioned_table_unsupported`, `sink_exists` (one sink per table) or
 * `already_exists` (its name); the table's not-found refusals as the catalog
 * routes answer them. The send key's token is returned once; only its hash is kept.
 */
export async function createSink(d: { prisma: PrismaClient; tables: SinkTables }, w: VisibleWarehouse, s: NewSinkAsk): Promise<{ sink: SinkRecord; sendKey: string }> {
  // the table: it exists and is unpartitioned
  const table = `${s.namespace}.${s.tableName}`;
  await requireAppendableTable(d.tables, w, s.namespace, s.tableName);
  // the row, with the send key's hash: one sink per table and one name per catalog are the database's
  // constraints on live rows, so of concurrent creates one inserts and the others are told which rule refused them
  const key = generateSendKey();
  const id = `snk_${randomBytes(12).toString('hex')}`;
  for (let attempt = 0; !(await insertSink(d.prisma, { id, warehouseId: w.id, ...s, sendKeyId: key.keyId, sendKeyHash: key.secretHash })); attempt++) {
    const clashing = await sinksClashing(d.prisma, { warehouseId: w.id, name: s.name, namespace: s.namespace, tableName: s.tableName });
    const sameTable = clashing.find((r) => r.namespace === s.namespace && r.tableName === s.tableName);
    if (sameTable) throw conflict('sink_exists', `${table} already has a sink (${sameTable.name}); one sink per table`, { sink: sameTable.name });
    if (clashing.length) throw conflict('already_exists', `a sink named ${s.name} already exists in this catalog`, { field: 'name' });
    // The rival was deleted between the insert and the read: the place is free again, once more.
    if (attempt > 0) throw conflict('sink_exists', `${table} or the name ${s.name} was taken and freed meanwhile; retry`, { sink: s.name });
  }
  const [sink] = await sinksOf(d.prisma, { warehouseIds: [w.id], id });
  return { sink, sendKey: key.token };
}

/** Marks a sink deleted; the record afterwards. 404 `sink_not_found` when a concurrent deletion went first (as a later one is answered). */
export async function deleteSink(d: { prisma: PrismaClient }, sink: SinkRecord): Promise<SinkRecord> {
  if (!(await markSinkDeleted(d.prisma, sink.id))) throw notFound('sink_not_found', `sink ${sink.id} was deleted`);
  const [after] = await sinksOf(d.prisma, { warehouseIds: [sink.warehouseId], includeDeleted: true, id: sink.id });
  return after;
}
