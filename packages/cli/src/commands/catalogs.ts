// `floe catalogs`: the catalogs this key can see and what an admin does to
// one — create, show, delete and restore within the grace period, rotate its
// credentials, publish its files and make it private again (the
// /v1/warehouses routes). A delete or a publish is confirmed by typing the
// catalog's name, which is also what those routes take as `confirm`; `set`
// changes its settings (default format version, storage access). New
// catalog credentials (rotate, restore) go to stdout alone, for a file or a
// secret store. --json prints Floe's answer, except `deleted`: the list
// answer narrowed to the deleted rows, `{warehouses: [...], count}`.
import { randomUUID } from 'node:crypto';
import { InvalidArgumentError, type Command } from 'commander';
import { ok, type Answer, type FloeApi, type WarehouseRow } from '../api-client.js';
import { act, examples, type Ctx } from '../command.js';
import { usageError } from '../errors.js';
import type { Io } from '../io.js';
import { bytesText, startProgress } from '../progress.js';
import { parseFormatVersion, type FormatVersion } from '../table-schema.js';

type ListedRow = Answer<'/v1/warehouses', 'get'>['warehouses'][number];
type DeletedRow = Exclude<ListedRow, WarehouseRow>;
type Credential = Answer<'/v1/warehouses/{warehouse_id}/rotate', 'post'>['catalog_credential'];
type StorageAccess = 'vended' | 'signing_only';

function parseStorageAccess(text: string): StorageAccess {
  if (text === 'vended' || text === 'signing_only') return text;
  throw new InvalidArgumentError('storage access is vended or signing_only');
}

const isLive = (w: ListedRow): w is WarehouseRow => 'my_level' in w;
const at = (warehouse_id: string) => ({ params: { path: { warehouse_id } } });

/** The project to create in: the one named, else the caller's only one. */
async function projectOf(api: FloeApi, named: string | undefined): Promise<string> {
  if (named) return named;
  const { projects } = await ok(api.http.GET('/v1/projects'));
  if (projects.length === 1) return projects[0].project_id;
  if (projects.length === 0) throw usageError('you have no project to make the catalog in', 'Make one on the console first.');
  throw usageError(`you have ${projects.length} projects; name one with --project <id|name>`, `Yours: ${projects.map((p) => p.name).join(', ')}`);
}

/** A new credential pair, once, on stdout. */
function printCredentials(c: Ctx, rw: Credential, ro: Credential): void {
  c.out.fields([['client_id', rw.client_id], ['client_secret', rw.client_secret], ['client_id_ro', ro.client_id], ['client_secret_ro', ro.client_secret]]);
}

export function registerCatalogs(program: Command, io: Io): void {
  const catalogs = program.command('catalogs').description('your catalogs: list, create, change settings, delete and restore, rotate credentials, publish');

  examples(catalogs.command('list', { isDefault: true })
    .description('list the catalogs you can reach, with your level on each')
    .option('--project <id|name>', 'only this project\'s catalogs')
    .action(act(io, async (c, opts: { project?: string }) => {
      const { api } = await c.session();
      const answer = await ok(api.http.GET('/v1/warehouses', { params: { query: opts.project ? { project: opts.project } : {} } }));
      c.out.result(answer, (a) => {
        const rows = a.warehouses.filter(isLive);
        if (rows.length === 0) c.out.note('No catalogs here yet. Make one with `floe catalogs create <name>`, or ask an admin to grant you one.');
        c.out.table(['NAME', 'LEVEL', 'VIA', 'PROJECT', 'STATUS'], rows.map((w) => [w.name, w.my_level, w.my_via, w.project, w.status]));
        if (a.headroom !== null) c.out.note(`Project ${a.project} holds ${a.count} of ${a.limit} catalogs.`);
      });
    })), ['floe catalogs', 'floe catalogs list --project analytics', 'floe catalogs list --json | jq -r ".warehouses[].name"']);

  examples(catalogs.command('create')
    .description('make a catalog: its table bucket, blob bucket and credentials')
    .argument('<name>', 'lowercase letters, digits and single underscores, starting with a letter')
    .option('--project <id|name>', 'the project to make it in (default: your only project)')
    .option('--format-version <n>', 'the Iceberg format version Floe\'s own table creates use: 2 (default) or 3', parseFormatVersion)
    .action(act(io, async (c, name: string, opts: { project?: string; formatVersion?: FormatVersion }) => {
      const { api } = await c.session();
      const project = await projectOf(api, opts.project);
      const body = { name, project_id: project, ...(opts.formatVersion ? { default_format_version: opts.formatVersion } : {}) };
      // One key for this run: a retry of the same request answers the first answer instead of making a second catalog.
      const headers = { 'Idempotency-Key': randomUUID() };
      const progress = startProgress(io, `Making catalog ${name}…`);
      const made = await ok(api.http.POST('/v1/warehouses', { body, headers })).catch((err: unknown) => {
        progress.fail(`Catalog ${name} was not made.`);
        throw err;
      });
      progress.succeed(`Catalog ${made.name} made in project ${made.project} (${made.status}).`);
      c.out.result(made, (w) => {
        c.out.fields([['name', w.name], ['warehouse_id', w.warehouse_id], ['project', w.project], ['status', w.status], ['format_version', w.default_format_version], ['catalog_uri', w.catalog_uri], ['warehouse', w.warehouse], ['blob_bucket', w.blob_bucket]]);
        if (w.status === 'provisioning') c.out.note(`Storage is not ready yet; Floe retries every ${w.retry_after_seconds ?? 30} s. ${w.remedy ?? ''}`.trim());
        c.out.note(`Connect an engine with: floe connect ${w.name}`);
      });
    })), ['floe catalogs create events', 'floe catalogs create events --project analytics --format-version 3']);

  examples(catalogs.command('show')
    .description('show one catalog')
    .argument('<catalog>', 'catalog name or id')
    .action(act(io, async (c, catalog: string) => {
      const { api } = await c.session();
      const w = await ok(api.http.GET('/v1/warehouses/{warehouse_id}', at(catalog)));
      c.out.result(w, (r) => {
        const s = r.stored;
        const stored = s.bytes === null ? (s.measuring ? 'being measured' : 'not measured yet') : `${bytesText(s.bytes)} in ${s.objects ?? '?'} objects (measured ${s.measured_at})`;
        c.out.fields([
          ['name', r.name], ['warehouse_id', r.warehouse_id], ['project', r.project], ['status', r.status], ['level', `${r.my_level}${r.my_via ? ` (via ${r.my_via})` : ''}`],
          ['format_version', r.default_format_version], ['storage_access', r.storage_access], ['catalog_uri', r.catalog_uri], ['warehouse', r.warehouse], ['blob_bucket', r.blob_bucket],
          ['placement', `${r.provider} ${r.region}`], ['stored', stored], ['public', r.public ? r.public_url : 'no'], ['instructions', r.agents_md ? `${r.agents_md.bytes} bytes` : 'none'], ['created_at', r.created_at],
        ]);
        if (r.public_note) c.out.note(r.public_note);
      });
    })), ['floe catalogs show lake', 'floe catalogs show lake --json | jq .stored']);

  examples(catalogs.command('set')
    .description('change a catalog\'s settings: the format version Floe\'s own table creates use, and how engines reach its files')
    .argument('<catalog>', 'catalog name or id')
    .option('--format-version <n>', '2 or 3', parseFormatVersion)
    .option('--storage-access <mode>', 'vended (storage credentials when engines ask) or signing_only (no credentials: the catalog signs each request)', parseStorageAccess)
    .action(act(io, async (c, catalog: string, opts: { formatVersion?: FormatVersion; storageAccess?: StorageAccess }) => {
      if (opts.formatVersion === undefined && opts.storageAccess === undefined) throw usageError('nothing to change', 'Name --format-version and/or --storage-access.');
      const { api } = await c.session();
      const body = { ...(opts.formatVersion !== undefined ? { default_format_version: opts.formatVersion } : {}), ...(opts.storageAccess ? { storage_access: opts.storageAccess } : {}) };
      const changed = await ok(api.http.PATCH('/v1/warehouses/{warehouse_id}', { ...at(catalog), body }));
      c.out.result(changed, (r) => {
        c.out.fields([['name', r.name], ['format_version', r.default_format_version], ['storage_access', r.storage_access], ['updated', r.updated.join(', ') || '(nothing: already so)']]);
        c.out.note(r.note);
      });
    })), ['floe catalogs set lake --storage-access signing_only', 'floe catalogs set lake --format-version 3 --json']);

  examples(catalogs.command('delete')
    .description('delete a catalog and everything in it; restorable until its grace period ends')
    .argument('<catalog>', 'catalog name or id')
    .action(act(io, async (c, catalog: string) => {
      const { api } = await c.session();
      // The route is confirmed with the exact name, which an id does not give.
      const { name, warehouse_id } = await ok(api.http.GET('/v1/warehouses/{warehouse_id}', at(catalog)));
      await c.confirm(`Delete catalog ${name} and everything in it (restorable until its grace period ends, then gone for good)`, name);
      const gone = await ok(api.http.DELETE('/v1/warehouses/{warehouse_id}', { ...at(warehouse_id), body: { confirm: name } }));
      c.out.result(gone, (g) => {
        c.out.fields([['name', g.name], ['warehouse_id', g.warehouse_id], ['status', g.status], ['restorable_until', g.restorable_until]]);
        if (g.warning) c.out.note(`warning: ${g.warning}`);
        c.out.note(`Catalog ${g.name} is gone for every caller. Until ${g.restorable_until} bring it back with: floe catalogs restore ${g.name}`);
      });
    })), ['floe catalogs delete scratch', 'floe catalogs delete scratch --yes --json']);

  examples(catalogs.command('deleted')
    .description('list deleted catalogs that can still be restored')
    .option('--project <id|name>', 'only this project\'s catalogs')
    .action(act(io, async (c, opts: { project?: string }) => {
      const { api } = await c.session();
      const answer = await ok(api.http.GET('/v1/warehouses', { params: { query: { include_deleted: 'true', ...(opts.project ? { project: opts.project } : {}) } } }));
      const deleted = answer.warehouses.filter((w): w is DeletedRow => !isLive(w));
      c.out.result({ warehouses: deleted, count: deleted.length }, (d) => {
        if (d.count === 0) return c.out.note('No deleted catalogs that can still be restored.');
        c.out.table(['NAME', 'ID', 'PROJECT', 'DELETED', 'RESTORABLE UNTIL'], d.warehouses.map((w) => [w.name, w.warehouse_id, w.project, w.requested_at, w.restorable_until]));
      });
    })), ['floe catalogs deleted', 'floe catalogs deleted --json | jq -r ".warehouses[].name"']);

  examples(catalogs.command('restore')
    .description('bring back a deleted catalog within its grace period, with new credentials')
    .argument('<catalog>', 'the deleted catalog\'s name or id (see `floe catalogs deleted`)')
    .action(act(io, async (c, catalog: string) => {
      const { api } = await c.session();
      const back = await ok(api.http.POST('/v1/warehouses/{warehouse_id}/restore', at(catalog)));
      c.out.result(back, (r) => {
        printCredentials(c, r.catalog_credential, r.catalog_credential_ro);
        c.out.note(`Catalog ${r.name} is back (${r.status}, ${r.grants_restored} grants restored); the credentials above are its new ones.`);
        c.out.note(r.note);
      });
    })), ['floe catalogs restore scratch', 'floe catalogs restore scratch > scratch-credentials.txt']);

  examples(catalogs.command('rotate')
    .description('replace a catalog\'s credentials; the current ones are refused at once')
    .argument('<catalog>', 'catalog name or id')
    .action(act(io, async (c, catalog: string) => {
      await c.confirm(`Replace the credentials of catalog ${catalog}: every engine using the current ones is refused at once`);
      const { api } = await c.session();
      const rotated = await ok(api.http.POST('/v1/warehouses/{warehouse_id}/rotate', at(catalog)));
      c.out.result(rotated, (r) => {
        printCredentials(c, r.catalog_credential, r.catalog_credential_ro);
        c.out.note(`${r.note} \`floe connect ${catalog}\` prints a recipe with the new credential.`);
      });
    })), ['floe catalogs rotate lake > lake-credentials.txt', 'floe catalogs rotate lake --yes --json | jq -r .catalog_credential.client_secret']);

  examples(catalogs.command('publish')
    .description('make a catalog\'s files readable by anyone without credentials (a person\'s act)')
    .argument('<catalog>', 'catalog name or id')
    .option('--files-prefix <prefix>', 'only the files under this key prefix of the table bucket (default: all of them)')
    .action(act(io, async (c, catalog: string, opts: { filesPrefix?: string }) => {
      const { api } = await c.session();
      const { name, warehouse_id } = await ok(api.http.GET('/v1/warehouses/{warehouse_id}', at(catalog)));
      await c.confirm(`Let anyone on the internet read the files of catalog ${name}${opts.filesPrefix ? ` under ${opts.filesPrefix}` : ''}`, name);
      const body = { confirm: name, ...(opts.filesPrefix ? { files_prefix: opts.filesPrefix } : {}) };
      const published = await ok(api.http.POST('/v1/warehouses/{warehouse_id}/public', { ...at(warehouse_id), body }));
      c.out.result(published, (p) => {
        c.out.fields([['public_url', p.public_url], ['files_prefix', p.files_prefix || '(all files)'], ['public_since', p.public_since]]);
        c.out.note(p.note);
      });
    })), ['floe catalogs publish open_data', 'floe catalogs publish open_data --files-prefix lake/cities/']);

  examples(catalogs.command('unpublish')
    .description('make a public catalog private again; anonymous reads are refused at once')
    .argument('<catalog>', 'catalog name or id')
    .action(act(io, async (c, catalog: string) => {
      const { api } = await c.session();
      const done = await ok(api.http.DELETE('/v1/warehouses/{warehouse_id}/public', at(catalog)));
      c.out.result(done, (p) => c.out.note(p.was_public ? `Catalog ${p.name} is private again. ${p.note}` : `Catalog ${p.name} was not public; nothing changed.`));
    })), ['floe catalogs unpublish open_data']);
}
