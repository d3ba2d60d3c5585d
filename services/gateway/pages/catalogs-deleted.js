// Deleted catalogs (catalogs-deleted.html, /app/catalogs-deleted): the
// organisation's catalogs in their grace period — when each was deleted,
// until when it can come back, how far teardown has gone — and, for admins,
// restoring one. A restored catalog comes back private with a new pair of
// catalog credentials, shown here once, and a link to it.
import { actionButton, bytes, call, catalogsOf, consolePage, credentialPair, empty, h, section, table, when } from '/app/console.js';

const enc = encodeURIComponent;

/** The answer of the last restore: kept in memory across the redraw of the list, never stored. */
let restored = null;

function teardownWords(t) {
  const step = t.storage?.step ?? 'queued';
  const words = step === 'queued' ? 'not begun' : step;
  return t.teardown_error ? `${words}; failed at ${t.teardown_error.step}: ${t.teardown_error.message}` : words;
}

function restoredPanel(r) {
  const href = `/app/catalog?catalog=${enc(r.warehouse_id)}`;
  return section('restored-title', `${r.name} is restored`,
    h('p', { role: 'status' }, r.note),
    h('p', {}, h('a', { href }, `Open ${r.name}`)),
    credentialPair(r));
}

function deletedTable(ctx, tombstones, isAdmin) {
  const columns = ['Catalog', 'State', 'Deleted', 'Restorable until', 'Size at deletion', 'Teardown'];
  return table('deleted-title', isAdmin ? [...columns, 'Restore'] : columns,
    tombstones.map((t) => {
      const cells = [t.name, t.state, when(t.requested_at), when(t.restorable_until), bytes(t.bytes_at_deletion), teardownWords(t)];
      if (!isAdmin) return cells;
      return [...cells, actionButton('Restore', async () => {
        restored = await call('POST', `/v1/warehouses/${enc(t.warehouse_id)}/restore`);
        await ctx.refresh();
        document.getElementById('restored-title')?.focus();
      }, { ariaLabel: `Restore ${t.name}` })];
    }),
    { rowData: tombstones.map((t) => ({ catalog: t.name })) });
}

await consolePage({
  area: 'home',
  title: 'Deleted catalogs',
  render: async (ctx) => {
    const tombstones = (await catalogsOf(ctx.org, { includeDeleted: true })).filter((w) => w.state);
    const isAdmin = ctx.org.role === 'admin';
    const made = restored;
    restored = null;
    ctx.body.append(h('nav', { 'aria-label': 'Back', class: 'tabs' }, h('a', { href: '/app/home' }, '← Home')));
    if (made) {
      const panel = restoredPanel(made);
      panel.querySelector('h2').tabIndex = -1;
      ctx.body.append(panel);
    }
    ctx.body.append(
      h('p', { class: 'hint' }, `Catalogs of ${ctx.org.name} deleted within their grace period. Until teardown begins an admin can restore one with its tables, data and grants; after it they are gone for good.`),
      section('deleted-title', 'In their grace period',
        tombstones.length ? deletedTable(ctx, tombstones, isAdmin) : empty('No deleted catalogs in their grace period.'),
        isAdmin ? null : h('p', { class: 'hint' }, 'Restoring a catalog is for an admin of the organisation.')));
  },
});
