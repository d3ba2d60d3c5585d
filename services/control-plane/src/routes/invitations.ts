import type { Express } from 'express';
import { AcceptInvitationBody, CreateInvitationBody } from '@floe/api';
import { roleOf, acceptInvitation, invite, listInvitations } from '@floe/accounts';
import { parse, route } from '@floe/http';
import type { ControlPlaneDeps } from '../deps';
import { invitationRow } from '../responses';

// Spec: POST /v1/orgs/{org_id}/invitations, POST /v1/orgs/invitations/accept,
// and the organisation's list of invitations (Floe's shape; the spec names it).

export function mountInvitations(app: Express, d: ControlPlaneDeps): void {
  route(app, '/v1/orgs/invitations/accept', {
    post: [...d.authed, async (req, res) => {
      const body = parse(AcceptInvitationBody, req.body);
      const { inv, joined } = await acceptInvitation(d, req, req.access!, body.token);
      res.json({ org_id: inv.orgId, invitation_id: inv.id, role: inv.role, joined_via: 'invitation', joined, note: joined ? 'You are now a member.' : 'You had accepted this invitation already.' });
    }],
  });

  route(app, '/v1/orgs/:org_id/invitations', {
    post: [...d.authed, async (req, res) => {
      const body = parse(CreateInvitationBody, req.body);
      const { invitation, token, delivery } = await invite(d, req, req.access!, String(req.params.org_id), { email: body.email, role: roleOf(body.role) });
      res.status(201).json({ ...invitationRow(invitation), token, token_note: 'Shown once; it was also mailed to the invited address.', delivery, accept: 'POST /v1/orgs/invitations/accept with {"token"}' });
    }],
    get: [...d.authed, async (req, res) => {
      const { orgId, invitations } = await listInvitations(d.prisma, req.access!, String(req.params.org_id));
      res.json({ org_id: orgId, invitations: invitations.map(invitationRow), count: invitations.length });
    }],
  });
}
