// The invitation page (invitation.html): the link of an invitation mail,
// /app/invitation?token=…, opened by someone who already has an account.
// Signed out, the frame sends them to sign in and back here. No route reads
// an invitation by its token, so the page shows the token and accepts it;
// the answer names the organisation joined, and the page leads there.
import { session } from '/app/app.js';
import { actionButton, call, consolePage, empty, field, form, h, here, params, section } from '/app/console.js';

/** The acceptance's answer, kept across the redraw that puts the new organisation in the header. */
let accepted = null;

function joined(ctx) {
  const org = ctx.orgs.find((o) => o.org_id === accepted.org_id);
  const name = org?.name ?? accepted.org_id;
  return section('joined-title', accepted.joined ? `You joined ${name}` : `You are already in ${name}`,
    h('p', { role: 'status' }, `Your role there: ${accepted.role}.`),
    h('p', {}, h('a', { href: `/app/home?org=${encodeURIComponent(accepted.org_id)}` }, `Go to ${name}`)));
}

function noToken() {
  return section('token-title', 'Paste your invitation token',
    empty('This address carries no invitation. Open the link in the invitation mail, or paste the token it shows (inv_…).'),
    form({
      id: 'token-form', submit: 'Show the invitation',
      fields: [field('token', 'Invitation token', { placeholder: 'inv_…' })],
      onsubmit: async ({ token }) => location.assign(here({ token: token.trim() })),
    }));
}

await consolePage({
  area: 'org',
  title: 'Invitation',
  needsOrg: false,
  render: async (ctx) => {
    if (accepted) return void ctx.body.append(joined(ctx));
    const token = params.get('token');
    if (!token) return void ctx.body.append(noToken());
    const alert = h('p', { role: 'alert', 'aria-live': 'assertive' });
    const email = session.get()?.email;
    ctx.body.append(section('invitation-title', 'You were invited to an organisation on Floe',
      h('p', {}, `Accepting joins the organisation with the role the invitation names. It must be accepted by the invited address${email ? `; you are signed in as ${email}` : ''}.`),
      h('dl', { class: 'facts' }, h('dt', {}, 'Invitation token'), h('dd', {}, h('code', {}, token))),
      h('div', { class: 'actions' }, actionButton('Accept the invitation', async () => {
        accepted = await call('POST', '/v1/orgs/invitations/accept', { token });
        await ctx.refresh();
      }, { alertEl: alert })),
      alert));
  },
});
