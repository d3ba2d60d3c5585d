// `floe catalogs`: the catalogs this key can see (GET /v1/warehouses) with the
// level it holds on each and why, as a table or, with --json, as Floe said it.
import type { Command } from 'commander';
import type { WarehouseRow } from '../api-client.js';
import type { Io } from '../io.js';
import { openSession } from '../session.js';
import { renderTable } from '../table.js';

export function catalogRows(rows: WarehouseRow[]): string[][] {
  return rows.map((w) => [w.name, w.my_level, w.my_via ?? '-', w.project ?? '-', ...(w.status === 'ready' ? [] : [w.status])]);
}

export function registerCatalogs(program: Command, io: Io): void {
  program.command('catalogs')
    .description('list the catalogs you can reach, with your level on each')
    .option('--json', 'print the list as JSON')
    .action(async (opts: { json?: boolean }, cmd: Command) => {
      const { api } = openSession(io, cmd.optsWithGlobals().baseUrl);
      const rows = await api.warehouses();
      if (opts.json) return io.out(JSON.stringify(rows, null, 2));
      if (rows.length === 0) return io.err('No catalogs: this key holds no catalog yet. An admin can grant one on the account page.');
      io.out(renderTable(['NAME', 'LEVEL', 'VIA', 'PROJECT', ...(rows.some((w) => w.status !== 'ready') ? ['STATUS'] : [])], catalogRows(rows)));
    });
}
