// Audit (audit.html): the audit log of the organisation in view as a table
// (GET /v1/audit?org_id=): an admin reads every member's events, a member
// only their own — the API decides and the page says which. The filters live
// in the address (?action=&since=&actor=&catalog=), so a filtered view can be
// linked. Floe filters by action and time; actor and catalog are matched here,
// within the events fetched, and the page says so.
import { call, catalogsOf, consolePage, empty, failure, h, here, section, table, when } from '/app/console.js';
import { session } from '/app/app.js';

/** The spec's action names (Events), by area; a prefix ending in `*` picks a whole area. */
const ACTIONS = [
  ['Sign-up and recovery', ['signup.start', 'signup.verify', 'signup.complete', 'recovery.start', 'recovery.verify']],
  ['Keys', ['api_key.create', 'api_key.revoke']],
  ['Projects and tables', ['project.create', 'table.create', 'table.update', 'credentials.vend']],
  ['Catalogs', ['warehouse.create', 'warehouse.update', 'warehouse.rotate', 'warehouse.rotate_complete', 'warehouse.grant', 'warehouse.grant_revoke', 'warehouse.delete', 'warehouse.delete_complete', 'warehouse.measure']],
  ['Organisations', ['org.create', 'org.update', 'org.domain_claim', 'org.invite', 'org.invitation_accept', 'org.member_join', 'org.member_role', 'org.member_remove', 'org.reserve', 'org.activate', 'org.limits.update']],
  ['Agents', ['agent.create', 'agent.update', 'agent.revoke']],
  ['Account', ['terms.accept', 'account.delete']],
  ['Limits', ['quota.reject']],
];
const PREFIXES = ['signup.*', 'recovery.*', 'api_key.*', 'table.*', 'warehouse.*', 'org.*', 'agent.*', 'sink.*'];
const KNOWN = new Set([...ACTIONS.flatMap(([, names]) => names), ...PREFIXES]);

const SPANS = [['', 'Any time'], ['30m', 'Last 30 minutes'], ['24h', 'Last 24 hours'], ['7d', 'Last 7 days'], ['30d', 'Last 30 days']];
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const PAGE = 100;
const MAX = 1000;

/** The filters as the address carries them. */
function filtersInAddress() {
  const q = new URLSearchParams(location.search);
  const limit = Number(q.get('limit'));
  return {
    action: q.get('action') ?? '', since: q.get('since') ?? '', actor: q.get('actor') ?? '', catalog: q.get('catalog') ?? '',
    limit: Number.isInteger(limit) && limit >= 1 && limit <= MAX ? limit : PAGE,
  };
}

/** `since` as the API takes it: a span as is; a date (from the date field) as that day's local midnight. */
const sinceForApi = (since) => (DATE.test(since) ? new Date(`${since}T00:00`).toISOString() : since);

/** The catalog an event is about: the warehouse it targets, or the one its data names. */
const catalogOfEvent = (e) => (e.target_type === 'warehouse' ? e.target_id : e.data?.warehouse_id ?? null);

/** Who acted, in words: a member's address (or name), "(you)" for this person; otherwise the kind and id. */
/** The element with a class added (the events table keeps a readable width on a phone: usage.css). */
const withClass = (el, name) => { el.classList.add(name); return el; };

function actorOf(e, people) {
  const p = people.get(e.actor_id);
  const mine = p?.email && p.email === session.get()?.email;
  if (p) return `${p.email ?? p.display_name ?? e.actor_id}${mine ? ' (you)' : ''}`;
  if (!e.actor_id) return 'Floe';
  return e.actor_kind === 'catalog_credential' ? `catalog credential ${e.actor_id}` : `${e.actor_kind ?? 'principal'} ${e.actor_id}`;
}


/** An event's data as one short line: key: value pairs, long values cut. */
function details(data) {
  const pairs = Object.entries(data ?? {}).map(([k, v]) => {
    const text = typeof v === 'string' ? v : JSON.stringify(v);
    return `${k}: ${text.length > 60 ? `${text.slice(0, 57)}…` : text}`;
  });
  return pairs.length ? h('span', { class: 'audit-details' }, pairs.join(' · ')) : '—';
}

function filtersForm(f, catalogs) {
  const actionChosen = KNOWN.has(f.action) ? f.action : '';
  const sinceChosen = DATE.test(f.since) ? '' : f.since;
  const select = (id, name, label, options) => h('div', { class: 'field' }, h('label', { for: id }, label),
    h('select', { id, name }, options));
  const option = (value, label, chosen) => h('option', { value, selected: value === chosen }, label);
  const input = (id, name, label, value, attrs = {}) => h('div', { class: 'field' }, h('label', { for: id }, label),
    h('input', { id, name, value, autocomplete: 'off', spellcheck: 'false', ...attrs }));
  const el = h('form', { class: 'filters', role: 'search', 'aria-label': 'Filter events' },
    select('f-action', 'action', 'Action', [
      option('', 'Any action', actionChosen),
      h('optgroup', { label: 'A whole area' }, PREFIXES.map((p) => option(p, p, actionChosen))),
      ...ACTIONS.map(([area, names]) => h('optgroup', { label: area }, names.map((n) => option(n, n, actionChosen)))),
    ]),
    input('f-prefix', 'prefix', 'Or an action or prefix', actionChosen ? '' : f.action, { placeholder: 'sink.*', 'aria-describedby': 'f-prefix-hint' }),
    input('f-actor', 'actor', 'Actor (address or id)', f.actor),
    select('f-catalog', 'catalog', 'Catalog', [option('', 'Any catalog', f.catalog), ...catalogs.map((c) => option(c.warehouse_id, c.name, f.catalog))]),
    select('f-since', 'since', 'Since', SPANS.map(([v, label]) => option(v, label, sinceChosen))),
    input('f-from', 'from', 'Or since a date', DATE.test(f.since) ? f.since : '', { type: 'date' }),
    h('button', { type: 'submit' }, 'Filter'),
    h('a', { href: here({ action: null, since: null, actor: null, catalog: null, limit: null }) }, 'Clear filters'));
  el.addEventListener('submit', (event) => {
    event.preventDefault();
    const v = Object.fromEntries(new FormData(el));
    location.assign(here({ action: v.prefix.trim() || v.action, since: v.from || v.since, actor: v.actor.trim(), catalog: v.catalog, limit: null }));
  });
  return h('div', {}, el,
    h('p', { id: 'f-prefix-hint', class: 'hint' }, 'An action is a name like warehouse.create, or a prefix ending in * like sink.*. Floe filters by action and time; actor and catalog are matched in this page, within the events fetched.'));
}

await consolePage({
  area: 'audit',
  title: 'Audit',
  render: async (ctx) => {
    const f = filtersInAddress();
    const [catalogs, members] = await Promise.all([
      catalogsOf(ctx.org, { includeDeleted: true }).catch(() => []),
      call('GET', `/v1/orgs/${encodeURIComponent(ctx.org.org_id)}/members`).then((r) => r.members).catch(() => []),
    ]);
    const people = new Map(members.map((m) => [m.principal_id, m]));
    const names = new Map(catalogs.map((c) => [c.warehouse_id, c.name]));
    const said = h('p', { role: 'status', id: 'audit-status', tabindex: '-1' });
    const results = h('div', { id: 'audit-results' });
    let limit = f.limit;

    const draw = async () => {
      const q = new URLSearchParams({ org_id: ctx.org.org_id, limit: String(limit) });
      if (f.action) q.set('action', f.action);
      if (f.since) q.set('since', sinceForApi(f.since));
      let answer;
      try {
        answer = await call('GET', `/v1/audit?${q}`);
      } catch (err) {
        said.textContent = '';
        results.replaceChildren(failure(err));
        return;
      }
      const actorText = f.actor.toLowerCase();
      const shown = answer.events.filter((e) => (!f.catalog || catalogOfEvent(e) === f.catalog)
        && (!actorText || `${actorOf(e, people)} ${e.actor_id ?? ''}`.toLowerCase().includes(actorText)));
      const whose = answer.scope === 'organisation' ? `Events of ${ctx.org.name}, by every member, newest first.` : 'Your own events, newest first (only an admin of the organisation sees everyone’s).';
      const local = f.actor || f.catalog ? ` Actor and catalog matched here: ${shown.length} of the ${answer.count} events fetched.` : '';
      said.textContent = `${whose} ${shown.length} shown.${local}`;
      const more = answer.count >= limit && limit < MAX
        ? h('button', { type: 'button', class: 'secondary', id: 'audit-more', onclick: async () => {
          limit = Math.min(limit + PAGE, MAX);
          history.replaceState(null, '', here({ limit }));
          await draw();
          document.getElementById('audit-more')?.focus() ?? said.focus();
        } }, `Load more (up to ${Math.min(limit + PAGE, MAX)})`)
        : null;
      results.replaceChildren(
        shown.length
          ? withClass(table('events-title', ['Time', 'Action', 'Actor', 'Target', 'Catalog', 'Details'], shown.map((e) => {
            const catalog = catalogOfEvent(e);
            return [when(e.created_at), h('code', { class: 'action-name' }, e.action), actorOf(e, people),
              e.target_type ? [e.target_type, ' ', h('code', {}, e.target_id ?? '')] : '—',
              catalog ? names.get(catalog) ?? h('code', {}, catalog) : '—', details(e.data)];
          }), { rowData: shown.map((e) => ({ action: e.action, event: e.id })) }), 'audit-events')
          : empty(f.action || f.since || f.actor || f.catalog ? 'No events match these filters.' : 'No events yet.'),
        more ? h('div', { class: 'actions' }, more) : '');
    };

    await draw();
    ctx.heading = `Audit of ${ctx.org.name}`;
    ctx.body.append(
      filtersForm(f, catalogs),
      section('events-title', 'Events', said, results));
  },
});
