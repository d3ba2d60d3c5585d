// Home (home.html): the organisation in view and its catalogs at a glance —
// status, tier, size, tables — and the next step for this person.
import { bytes, call, catalogsOf, consolePage, empty, h, section } from '/app/console.js';

/** What the stored figures say, with how fresh they are. */
function size(stored) {
  if (stored.unmetered) return stored.measuring ? 'measuring…' : 'not measured yet';
  return `${bytes(stored.bytes)}${stored.complete ? '' : ' (at least)'}`;
}

async function tableCount(catalog) {
  if (catalog.status !== 'ready') return null;
  const { tables } = await call('GET', `/v1/tables?warehouse_id=${encodeURIComponent(catalog.warehouse_id)}`).catch(() => ({ tables: null }));
  return tables ? tables.length : null;
}

function card(catalog, tables) {
  const href = `/app/catalog?catalog=${encodeURIComponent(catalog.warehouse_id)}`;
  return h('li', { class: 'card', dataset: { catalog: catalog.name } },
    h('h3', {}, h('a', { href }, catalog.name)),
    h('dl', {},
      h('dt', {}, 'Status'), h('dd', {}, catalog.status),
      h('dt', {}, 'Tier'), h('dd', {}, catalog.public ? 'public' : 'private'),
      h('dt', {}, 'Size'), h('dd', {}, size(catalog.stored)),
      h('dt', {}, 'Tables'), h('dd', {}, tables === null ? '—' : String(tables)),
      h('dt', {}, 'Your level'), h('dd', {}, `${catalog.my_level} (${catalog.my_via})`)));
}

/** The next step: a first table when there is none, else sending rows or connecting an engine. */
function nextSteps(catalogs, counts, org) {
  const first = catalogs.find((c) => c.status === 'ready');
  if (!first) return [h('li', {}, 'Your first catalog is being made; this page shows it once it is ready.')];
  const at = `/app/catalog?catalog=${encodeURIComponent(first.warehouse_id)}`;
  const steps = [];
  if (!counts.some((n) => n)) steps.push(h('li', {}, h('a', { href: `${at}#tables` }, `Create a table in ${first.name}`), ', or connect an engine and create one from there.'));
  steps.push(h('li', {}, h('a', { href: `${at}#connect` }, `Connect DuckDB, PyIceberg or Spark to ${first.name}`), '.'));
  steps.push(h('li', {}, h('a', { href: `/app/sinks?catalog=${encodeURIComponent(first.warehouse_id)}` }, 'Send JSON rows into a table through a sink'), '.'));
  if (org.role === 'admin') steps.push(h('li', {}, h('a', { href: '/app/org' }, 'Invite your team'), '.'));
  return steps;
}

await consolePage({
  area: 'home',
  title: 'Home',
  render: async (ctx) => {
    const catalogs = (await catalogsOf(ctx.org)).filter((c) => !c.state);
    const counts = await Promise.all(catalogs.map(tableCount));
    ctx.heading = ctx.org.name;
    ctx.body.append(
      h('p', { class: 'hint' }, `Organisation ${ctx.org.handle} · your role: ${ctx.org.role}`),
      section('catalogs-title', 'Catalogs',
        catalogs.length
          ? h('ul', { class: 'cards' }, catalogs.map((c, i) => card(c, counts[i])))
          : empty('No catalogs here yet that you can reach.'),
        h('p', {}, h('a', { href: '/app/catalogs-deleted' }, 'Deleted catalogs'), ' (restore within the grace period)')),
      section('next-title', 'What to do next', h('ol', {}, nextSteps(catalogs, counts, ctx.org))));
  },
});
