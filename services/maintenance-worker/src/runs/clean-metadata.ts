import { metadataFileLocation } from '@floe/iceberg';
import { METADATA_PROPERTIES } from '@floe/queues';
import { capped, type KindOutcome, type KindPlan, type KindRunner, type RunContext } from './kind';
import type { TableAccess } from '@floe/catalog-client';

// Metadata files: every table gets Iceberg's own clean-up at commit
// (`write.metadata.delete-after-commit.enabled`, and at most
// `write.metadata.previous-versions-max` earlier metadata files logged; the
// catalog honours both at each commit), set here through the catalog where a
// table lacks them; and metadata JSON files in the table's metadata folder
// that neither the current metadata nor its log names — left by commits made
// before the properties were set, or by commits that lost their race — are
// removed once an hour old (a commit in flight writes its file moments
// before it swaps it in).

const IN_FLIGHT_MS = 3_600_000;

interface MetadataPlan extends KindPlan {
  setProperties: Record<string, string>;
  files: Array<{ path: string; size: number }>;
}

async function plan(ctx: RunContext, t: TableAccess): Promise<MetadataPlan> {
  const props = t.metadata.properties ?? {};
  const setProperties = Object.fromEntries(Object.entries(METADATA_PROPERTIES).filter(([k]) => props[k] === undefined));
  const named = new Set<string>((t.metadata['metadata-log'] ?? []).map((e) => e['metadata-file']));
  const current = t.loaded['metadata-location'];
  if (current) named.add(current);
  const folder = metadataFileLocation(t.metadata, '');
  const files = (await t.list())
    .filter((o) => o.path.startsWith(folder) && o.path.endsWith('.metadata.json') && !named.has(o.path))
    .filter((o) => (o.lastModified?.getTime() ?? ctx.nowMs) < ctx.nowMs - IN_FLIGHT_MS)
    .map((o) => ({ path: o.path, size: o.size }));
  const bytes = files.reduce((n, f) => n + f.size, 0);
  const nothing = Object.keys(setProperties).length === 0 && files.length === 0;
  const parts = [];
  if (Object.keys(setProperties).length) parts.push(`set ${Object.keys(setProperties).join(' and ')}`);
  if (files.length) parts.push(`${files.length} metadata files no metadata names (${bytes} bytes)`);
  return {
    nothing,
    reason: nothing ? `nothing to clean: the table keeps at most ${props['write.metadata.previous-versions-max'] ?? METADATA_PROPERTIES['write.metadata.previous-versions-max']} earlier metadata files and deletes the rest at commit` : parts.join('; '),
    summary: { set_properties: setProperties, files_to_remove: { count: files.length, bytes, ...capped(files.map((f) => f.path)) } },
    setProperties,
    files,
  };
}

async function apply(ctx: RunContext, t: TableAccess, p: MetadataPlan): Promise<KindOutcome> {
  if (Object.keys(p.setProperties).length) {
    await ctx.catalog.commitTable(t.ref.warehouseId, { namespace: t.ref.namespace, name: t.ref.table }, {
      requirements: t.metadata['table-uuid'] ? [{ type: 'assert-table-uuid', uuid: t.metadata['table-uuid'] }] : [],
      updates: [{ action: 'set-properties', updates: p.setProperties }],
    });
  }
  await t.remove(p.files.map((f) => f.path));
  return { freedBytes: p.files.reduce((n, f) => n + f.size, 0), snapshotId: null };
}

export const cleanMetadata: KindRunner<MetadataPlan> = { plan, apply };
