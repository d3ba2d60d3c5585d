// The organisation page (org.html): the organisation in view, its people,
// invitations, mail domains, policy, agents and connected applications. A
// member sees what the API lets every member read (people, policy, agents)
// and acts only on what is theirs (leaving, the agents they made); an admin
// also renames, invites, changes roles, claims domains and sets the policy.
// The API decides every change; the page only leaves out what it would refuse.
import { session } from '/app/app.js';
import { actionButton, ago, call, catalogsOf, confirmTyped, consolePage, copyable, empty, facts, field, form, h, section, shownOnce, table, when } from '/app/console.js';

/** A secret made on this page (an agent's key, an invitation's link), shown by the next drawing only. */
let made = null;
const takeMade = (kind) => {
  if (made?.kind !== kind) return null;
  const m = made;
  made = null;
  return m;
};

const orgPath = (ctx, rest = '') => `/v1/orgs/${encodeURIComponent(ctx.org.org_id)}${rest}`;

const POLICY_LABELS = {
  agents: 'Who may make and edit agents',
  device_login: 'Who may approve a command-line login',
  oauth_consent: 'Who may let an application act for them (OAuth)',
  public_catalogs: 'Who may make a catalog public',
  second_factor: 'Two-factor authentication for members',
};
const WHO = { members: 'members and admins', admins: 'admins only', nobody: 'nobody', optional: 'each member decides', required: 'required at sign-in' };

function settings(ctx, isAdmin) {
  const about = facts([['Name', ctx.org.name], ['Handle', h('code', {}, ctx.org.handle)], ['Your role', ctx.org.role], ['You joined by', ctx.org.joined_via]]);
  const rename = isAdmin ? form({
    id: 'rename-form', submit: 'Rename',
    fields: [field('org_name', 'Organisation name', { value: ctx.org.name, hint: 'The handle stays; it is in addresses and the command line.' })],
    onsubmit: async ({ org_name: name }) => {
      await call('PATCH', orgPath(ctx), { name });
      await ctx.refresh();
    },
  }) : null;
  return section('settings-title', 'Organisation', about, rename);
}

// ---- people ----

function memberActions(ctx, m, { isAdmin, isMe }) {
  const who = m.email ?? m.display_name ?? m.principal_id;
  const path = orgPath(ctx, `/members/${encodeURIComponent(m.principal_id)}`);
  if (isMe) {
    return actionButton('Leave', async () => {
      const left = await confirmTyped({
        title: `Leave ${ctx.org.name}`, text: 'You lose its catalogs and your grants on them; an admin can invite you again.',
        expected: ctx.org.handle, button: 'Leave', action: () => call('DELETE', path),
      });
      if (left) location.assign('/app/home');
    }, { secondary: true, danger: true, ariaLabel: `Leave ${ctx.org.name}` });
  }
  if (!isAdmin) return '';
  const next = m.role === 'admin' ? 'member' : 'admin';
  return h('span', { class: 'actions' },
    actionButton(next === 'admin' ? 'Make admin' : 'Make member', async () => {
      await call('PATCH', path, { role: next });
      await ctx.refresh();
    }, { secondary: true, ariaLabel: `Make ${next} ${who}` }),
    actionButton('Remove', async () => {
      const removed = await confirmTyped({
        title: `Remove ${who}`, text: `They leave ${ctx.org.name}, with their grants on its catalogs.`,
        expected: who, button: 'Remove', action: () => call('DELETE', path),
      });
      if (removed) await ctx.refresh();
    }, { secondary: true, danger: true, ariaLabel: `Remove ${who}` }));
}

function people(ctx, members, { isAdmin, me }) {
  const persons = members.filter((m) => m.kind === 'human');
  const rows = persons.map((m) => [
    h('span', {}, m.display_name ? `${m.display_name} ` : '', m.email ?? m.principal_id, m.principal_id === me ? ' (you)' : ''),
    h('span', { class: 'badge' }, m.role),
    h('span', {}, `${m.joined_via}, `, when(m.joined_at)),
    memberActions(ctx, m, { isAdmin, isMe: m.principal_id === me }),
  ]);
  return section('members-title', 'Members',
    h('p', { class: 'hint' }, 'The people of the organisation. Agents and connected applications are members too; they are listed below.'),
    table('members-title', ['Person', 'Role', 'Joined', h('span', { class: 'hint' }, 'Action')], rows,
      { rowData: persons.map((m) => ({ member: m.principal_id, email: m.email ?? '' })) }));
}

function invitations(ctx, list) {
  const sent = takeMade('invitation');
  const link = sent ? `${location.origin}/app/invitation?token=${encodeURIComponent(sent.token)}` : null;
  const invite = form({
    id: 'invite-form', submit: 'Send invitation',
    hint: 'The invited person accepts from the mail while signed in with that address, or signs up with it and joins by itself. Invitations last 7 days.',
    fields: [
      field('invite_email', 'Email address', { type: 'email' }),
      field('invite_role', 'Role', { options: [['member', 'member'], ['admin', 'admin']], value: 'member' }),
    ],
    onsubmit: async ({ invite_email: email, invite_role: role }) => {
      const r = await call('POST', orgPath(ctx, '/invitations'), { email, role });
      made = { kind: 'invitation', ...r };
      await ctx.refresh();
    },
  });
  const rows = list.map((i) => [i.email, i.role, h('span', { class: 'badge' }, i.status), when(i.created_at), i.status === 'pending' ? when(i.expires_at) : '—']);
  return section('invitations-title', 'Invitations',
    sent ? h('div', { class: 'notice' },
      h('p', { role: 'status' }, `Invitation sent to ${sent.email} as ${sent.role}${sent.delivery === 'email' ? ' by mail' : ' (mail is off here: the link went to the log)'}.`),
      shownOnce(link, 'invitation link')) : null,
    invite,
    list.length
      ? table('invitations-title', ['Address', 'Role', 'Status', 'Sent', 'Expires'], rows, { rowData: list.map((i) => ({ invitation: i.invitation_id })) })
      : empty('No invitations yet.'));
}

// ---- domains ----

function dnsRecord(record) {
  return h('dl', { class: 'facts dns-record' },
    h('dt', {}, 'Type'), h('dd', {}, record.type),
    h('dt', {}, 'Name'), h('dd', {}, copyable(record.name, 'record name')),
    h('dt', {}, 'Value'), h('dd', {}, copyable(record.value, 'record value')));
}

/** The last domain action's words, kept across the redraw that shows its effect. */
let domainNote = null;

/**
 * The claimed mail domains and domain join, as the policy answer reads them
 * (any member sees them); an admin claims (a DNS record when their address
 * does not prove it), removes, and switches domain join.
 */
function domains(ctx, p, isAdmin) {
  const outcome = h('div', { 'aria-live': 'polite', class: 'domain-outcome' }, domainNote ?? '');
  domainNote = null;
  const said = (...content) => outcome.replaceChildren(...content);
  const redrawWith = async (note) => { domainNote = note; await ctx.refresh(); };
  const verify = (domain) => actionButton('Check the record and claim', async () => {
    const r = await call('POST', orgPath(ctx, `/domains/${encodeURIComponent(domain)}/verify`));
    await redrawWith(h('p', { role: 'status' }, `${r.domain} is the organisation’s (proven by DNS). The record may be removed now.`));
  });
  const claim = form({
    id: 'domain-form', submit: 'Claim domain',
    hint: 'Your own verified address on the domain proves it; otherwise Floe names a DNS record to publish.',
    fields: [field('claim_domain', 'Domain', { placeholder: 'example.com' })],
    onsubmit: async ({ claim_domain: domain }) => {
      said();
      try {
        const r = await call('POST', orgPath(ctx, '/domains'), { domain });
        await redrawWith(h('p', { role: 'status' }, `${r.domain} is the organisation’s${r.proof === 'verified_address' ? ' (proven by your address)' : ''}.${p.domain_join ? '' : ' Switch domain join on to let people there join.'}`));
      } catch (err) {
        if (err.code !== 'domain_not_verified' || !err.details?.dns_record) throw err;
        said(h('p', {}, `To prove ${domain}, publish this DNS record, then check it:`), dnsRecord(err.details.dns_record), verify(domain));
      }
    },
  });
  const remove = (d) => actionButton('Remove', async () => {
    const done = await confirmTyped({
      title: `Remove ${d.domain}`, text: 'People who joined by it stay. Domain join switches off when no domain is left.',
      expected: d.domain, button: 'Remove domain', action: () => call('DELETE', orgPath(ctx, `/domains/${encodeURIComponent(d.domain)}`)),
    });
    if (done) await redrawWith(h('p', { role: 'status' }, `${d.domain} is removed.`));
  }, { secondary: true, danger: true, ariaLabel: `Remove ${d.domain}` });
  const toggle = actionButton(p.domain_join ? 'Switch domain join off' : 'Switch domain join on', async () => {
    const r = await call('PATCH', orgPath(ctx), { domain_join: !p.domain_join });
    await redrawWith(h('p', { role: 'status' }, `Domain join is ${r.domain_join ? 'on' : 'off'}.`));
  }, { secondary: true });
  const joinWords = p.domain_join
    ? 'Domain join is on: people with a verified address on a claimed domain join as members.'
    : 'Domain join is off: people join only by invitation.';
  return section('domains-title', 'Mail domains',
    p.domains.length
      ? table('domains-title', ['Domain', 'Claimed', isAdmin ? 'Action' : null].filter(Boolean),
        p.domains.map((d) => [h('code', {}, d.domain), when(d.claimed_at), isAdmin ? remove(d) : null].filter((c) => c !== null)),
        { rowData: p.domains.map((d) => ({ domain: d.domain })) })
      : empty('No mail domain is claimed.'),
    h('p', { id: 'domain-join' }, joinWords),
    isAdmin ? [p.domains.length ? h('div', { class: 'actions' }, toggle) : null, claim] : null,
    outcome);
}

// ---- policy ----

function policy(ctx, p, isAdmin) {
  const fields = Object.keys(POLICY_LABELS);
  if (!isAdmin) {
    return section('policy-title', 'Policy',
      h('dl', { class: 'facts' }, fields.flatMap((k) => [h('dt', {}, POLICY_LABELS[k]), h('dd', { dataset: { policy: k } }, WHO[p.policy[k]] ?? p.policy[k])])),
      h('p', { class: 'hint' }, 'An admin changes the policy.'));
  }
  return section('policy-title', 'Policy',
    form({
      id: 'policy-form', submit: 'Save policy',
      fields: fields.map((k) => field(`policy_${k}`, POLICY_LABELS[k], {
        options: p.choices[k].map((c) => [c, `${WHO[c] ?? c}${c === p.defaults[k] ? ' (default)' : ''}`]), value: p.policy[k],
      })),
      onsubmit: async (values) => {
        await call('PATCH', orgPath(ctx, '/policy'), Object.fromEntries(fields.map((k) => [k, values[`policy_${k}`]])));
        await ctx.refresh();
      },
    }),
    p.updated_at ? h('p', { class: 'hint' }, 'Last changed ', when(p.updated_at), '.') : null);
}

// ---- agents and connected applications ----

const grantsText = (a) => (!a.confined ? 'everything its role reaches (not confined)' : a.grants.length ? a.grants.map((g) => `${g.name}:${g.level}`).join(', ') : 'no catalogs');
const creatorText = (a) => a.created_by?.display ?? a.created_by?.principal_id ?? '—';

/** One select per catalog: no access, read or write; `prefix` keeps the ids of several on one page apart. */
function levelSelects(prefix, catalogs, held = []) {
  return h('fieldset', { class: 'grants' }, h('legend', {}, 'Catalog access'),
    catalogs.map((c) => {
      const id = `${prefix}-${c.warehouse_id}`;
      const level = held.find((g) => g.warehouse_id === c.warehouse_id)?.level ?? '';
      return h('div', { class: 'field' }, h('label', { for: id }, c.name),
        h('select', { id, name: `grant:${c.warehouse_id}` }, [['', 'no access'], ['read', 'read'], ['write', 'write']].map(([v, t]) => h('option', { value: v, selected: v === level }, t))));
    }));
}

const grantsFrom = (values) => Object.entries(values).filter(([k, v]) => k.startsWith('grant:') && v).map(([k, level]) => ({ warehouse_id: k.slice('grant:'.length), level }));

function revokeButton(ctx, a, what) {
  return actionButton('Revoke', async () => {
    const done = await confirmTyped({
      title: `Revoke ${a.name}`, text: 'Its keys and tokens are refused at once and its grants are removed. This cannot be undone.',
      expected: a.name, button: 'Revoke', action: () => call('DELETE', orgPath(ctx, `/agents/${encodeURIComponent(a.agent_id)}`)),
    });
    if (done) await ctx.refresh();
  }, { secondary: true, danger: true, ariaLabel: `Revoke ${what} ${a.name}` });
}

function grantsEditor(ctx, a, catalogs, index) {
  return h('details', {}, h('summary', {}, `Change grants of ${a.name}`), form({
    id: `grants-form-${index}`, submit: 'Save grants',
    fields: [levelSelects(`grant-${index}`, catalogs, a.grants)],
    onsubmit: async (values) => {
      await call('PATCH', orgPath(ctx, `/agents/${encodeURIComponent(a.agent_id)}`), { grants: grantsFrom(values) });
      await ctx.refresh();
    },
  }));
}

function newAgent(ctx, catalogs, isAdmin) {
  return form({
    id: 'agent-form', submit: 'Create agent',
    hint: 'An agent is a program’s own identity with an API key: it reaches only the catalogs granted here.',
    fields: [
      field('agent_name', 'Agent name', { placeholder: 'loader' }),
      isAdmin ? field('agent_role', 'Role', { options: [['member', 'member'], ['admin', 'admin (manages the organisation)']], value: 'member' }) : null,
      levelSelects('new-grant', catalogs),
    ],
    onsubmit: async (values) => {
      const r = await call('POST', orgPath(ctx, '/agents'), { name: values.agent_name, role: values.agent_role ?? 'member', grants: grantsFrom(values) });
      made = { kind: 'agent', ...r };
      await ctx.refresh();
    },
  });
}

function agents(ctx, list, catalogs, { isAdmin, me, policyAllows }) {
  const key = takeMade('agent');
  const own = (a) => a.created_by?.principal_id === me && a.role !== 'admin';
  const mayRevoke = (a) => isAdmin || own(a);
  const mayEdit = (a) => isAdmin || (own(a) && policyAllows);
  const rows = list.map((a, i) => [
    h('span', {}, a.name), h('span', { class: 'badge' }, a.role), grantsText(a), creatorText(a),
    a.last_key_use ? ago(a.last_key_use.at) : 'never',
    h('div', { class: 'row-actions' }, mayRevoke(a) ? revokeButton(ctx, a, 'agent') : null, mayEdit(a) ? grantsEditor(ctx, a, catalogs, i) : null),
  ]);
  return section('agents-title', 'Agents',
    key ? h('div', { class: 'notice', dataset: { madeAgent: key.agent_id } },
      h('p', { role: 'status' }, `Agent ${key.name} made with ${grantsText(key)}.`), shownOnce(key.api_key, `API key of ${key.name}`)) : null,
    list.length
      ? table('agents-title', ['Name', 'Role', 'Catalogs', 'Made by', 'Key last used', h('span', { class: 'hint' }, 'Action')], rows, { rowData: list.map((a) => ({ agent: a.agent_id })) })
      : empty('No agents yet.'),
    isAdmin || policyAllows ? h('div', {}, h('h3', {}, 'New agent'), newAgent(ctx, catalogs, isAdmin)) : h('p', { class: 'hint' }, 'The policy lets only admins make agents here.'));
}

function applications(ctx, list, { isAdmin, me }) {
  const rows = list.map((a) => [a.name, creatorText(a), when(a.created_at), a.role, grantsText(a),
    isAdmin || a.created_by?.principal_id === me ? revokeButton(ctx, a, 'application') : '']);
  return section('apps-title', 'Connected applications',
    h('p', { class: 'hint' }, 'Applications a person of the organisation allowed to act for them (OAuth). Revoking one stops its tokens at once.'),
    list.length
      ? table('apps-title', ['Application', 'Allowed by', 'Allowed', 'Role', 'Catalogs', h('span', { class: 'hint' }, 'Action')], rows, { rowData: list.map((a) => ({ agent: a.agent_id })) })
      : empty('No applications are connected.'));
}

await consolePage({
  area: 'org',
  title: 'Organisation',
  render: async (ctx) => {
    const isAdmin = ctx.org.role === 'admin';
    const [{ members }, { agents: tokens }, pol, invited, catalogs] = await Promise.all([
      call('GET', orgPath(ctx, '/members')),
      call('GET', orgPath(ctx, '/agents')),
      call('GET', orgPath(ctx, '/policy')),
      // Only admins read the invitations (the API refuses members).
      isAdmin ? call('GET', orgPath(ctx, '/invitations')) : null,
      catalogsOf(ctx.org).then((all) => all.filter((c) => !c.state)),
    ]);
    const email = session.get()?.email?.toLowerCase();
    const me = members.find((m) => m.kind === 'human' && m.email?.toLowerCase() === email)?.principal_id ?? null;
    const who = { isAdmin, me, policyAllows: isAdmin || pol.policy.agents === 'members' };
    ctx.heading = ctx.org.name;
    ctx.body.append(...[
      h('p', { class: 'hint' }, `Organisation ${ctx.org.handle} · your role: ${ctx.org.role}`),
      settings(ctx, isAdmin),
      people(ctx, members, who),
      isAdmin ? invitations(ctx, invited.invitations) : null,
      agents(ctx, tokens.filter((a) => a.kind !== 'mcp'), catalogs, who),
      applications(ctx, tokens.filter((a) => a.kind === 'mcp'), who),
      policy(ctx, pol, isAdmin),
      domains(ctx, pol, isAdmin),
    ].filter(Boolean));
  },
});
