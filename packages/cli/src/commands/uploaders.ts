// `floe uploaders list|create|revoke`: a catalog's uploaders, write-only
// storage keys for its blob bucket that a device or a script uses to PUT files
// under one prefix straight into the store, never reading, deleting or
// reaching the API (GET, POST …/uploaders, DELETE …/uploaders/{id}). A new
// uploader's secret is printed once, alone on stdout, so
// `floe uploaders create lake cam-1 > cam-1.secret` keeps it out of the
// terminal; what goes with it (key id, endpoint, bucket, scope) goes to
// stderr, and --json prints Floe's whole answer, recipes included.
import { InvalidArgumentError, type Command } from 'commander';
import { ok } from '../api-client.js';
import { act, examples } from '../command.js';
import type { Io } from '../io.js';

/** An ISO 8601 time, sent as UTC; whether it is in the future is Floe's to say. */
export function parseTime(text: string): string {
  const t = Date.parse(text);
  if (!/^\d{4}-\d{2}-\d{2}/.test(text) || Number.isNaN(t)) throw new InvalidArgumentError('an ISO 8601 time, e.g. 2026-12-31 or 2026-12-31T18:00:00Z');
  return new Date(t).toISOString();
}

export function registerUploaders(program: Command, io: Io): void {
  const uploaders = program.command('uploaders').description("write-only storage keys for a catalog's blob bucket (for devices and scripts)");

  examples(uploaders.command('list', { isDefault: true })
    .description("list a catalog's uploaders (never their secrets)")
    .argument('<catalog>', 'catalog name or id')
    .option('--include-revoked', 'list revoked and expired ones too')
    .action(act(io, async (c, catalog: string, opts: { includeRevoked?: boolean }) => {
      const { api } = await c.session();
      const answer = await ok(api.http.GET('/v1/warehouses/{warehouse_id}/uploaders', {
        params: { path: { warehouse_id: catalog }, query: opts.includeRevoked ? { include_revoked: 'true' } : {} },
      }));
      c.out.result(answer, (a) => {
        if (a.count === 0) return c.out.note(`No ${opts.includeRevoked ? '' : 'active '}uploaders on ${catalog}; make one with \`floe uploaders create ${catalog} <name>\`.`);
        c.out.table(['NAME', 'UPLOADER ID', 'PREFIX', 'LIST', 'STATUS', 'EXPIRES', 'CREATED'],
          a.uploaders.map((u) => [u.name, u.uploader_id, u.prefix, u.list ? 'yes' : 'no', u.status, u.expires_at ?? 'never', u.created_at]));
      });
    })), ['floe uploaders list lake', 'floe uploaders list lake --include-revoked --json | jq -r ".uploaders[].name"']);

  examples(uploaders.command('create')
    .description('make an uploader: a key that may only PUT under its prefix; the secret is printed once')
    .argument('<catalog>', 'catalog name or id')
    .argument('<name>', 'what it is for: 1-64 letters, digits, ".", "_" and "-"')
    .option('--prefix <prefix>', 'where it may write (default: <name>/)')
    .option('--list', 'also let it list the files under its prefix')
    .option('--expires-at <time>', 'when the key stops working, ISO 8601 (default: never)', parseTime)
    .action(act(io, async (c, catalog: string, name: string, opts: { prefix?: string; list?: boolean; expiresAt?: string }) => {
      const { api } = await c.session();
      const made = await ok(api.http.POST('/v1/warehouses/{warehouse_id}/uploaders', {
        params: { path: { warehouse_id: catalog } },
        body: { name, ...(opts.prefix !== undefined ? { prefix: opts.prefix } : {}), ...(opts.list ? { list: true } : {}), ...(opts.expiresAt ? { expires_at: opts.expiresAt } : {}) },
      }));
      c.out.result(made, (u) => {
        c.out.line(u.secret_access_key);
        c.out.note([
          `Uploader ${u.name} (${u.uploader_id}) may PUT under ${u.scope}${u.list ? ' and list there' : ''}, ${u.expires_at ? `until ${u.expires_at}` : 'until revoked'}.`,
          `  access key id: ${u.access_key_id}`,
          `  endpoint:      ${u.endpoint} (path-style), region ${u.region}, bucket ${u.bucket}`,
          'The secret above is shown once; Floe keeps none. --json prints it all, with aws-cli and boto3 recipes.',
        ].join('\n'));
      });
    })), [
    'floe uploaders create lake camera-1 > camera-1.secret',
    'floe uploaders create lake nightly-export --prefix exports/ --list --expires-at 2026-12-31T00:00:00Z',
    'floe uploaders create lake cam-2 --json | jq -r .recipe.aws_cli',
  ]);

  examples(uploaders.command('revoke')
    .description('revoke an uploader at once: its key stops working')
    .argument('<catalog>', 'catalog name or id')
    .argument('<uploader>', 'the uploader id (upl_…) or name')
    .action(act(io, async (c, catalog: string, uploader: string) => {
      await c.confirm(`Revoke uploader ${uploader} of ${catalog}: whatever uses its key can no longer upload`);
      const { api } = await c.session();
      const revoked = await ok(api.http.DELETE('/v1/warehouses/{warehouse_id}/uploaders/{uploader_id}', {
        params: { path: { warehouse_id: catalog, uploader_id: uploader } },
      }));
      c.out.result(revoked, (u) => c.out.note(u.already_revoked ? `Uploader ${u.name} (${u.uploader_id}) was already ${u.status}.` : `Revoked uploader ${u.name} (${u.uploader_id}).`));
    })), ['floe uploaders revoke lake camera-1', 'floe uploaders revoke lake upl_3f2a… --yes']);
}
