import { randomBytes } from 'node:crypto';
import type { Request } from 'express';
import { hashSecret } from '@floe/auth';
import type { FloeConfig } from '@floe/config';
import type { PrismaClient } from '@floe/db';
import { effectiveLimits } from '@floe/db/limits';
import { forbidden, HttpError, limitExceeded, notFound, rateLimited, writeAudit, type SqlClient, writeAuditIn } from '@floe/http';
import type { Mailer, OutgoingMail } from '@floe/mail';
import type { AccessContext } from '../access/context';
import { countPendingInvitations, expirePendingTo, insertInvitation, invitationHashOf, invitationsOf, inviterOf, lockInvitation, lockInvitations, markAccepted, pendingInvitationFor, pendingInvitationTo, type InvitationRecord } from '../invitation-records';
import { joinOnce } from '../members';
import { orgAdminFor } from './orgs';

// Spec: invitations. An admin invites an address with a role; the token is
// shown once and mailed, only its hash kept. The
// invited person accepts while signed in with that address, or signs up with
// it later and the invitation applies by itself. Invitations last 7 days
// (Floe's choice; the spec gives none).

export const INVITATION_DAYS = 7;

const tokenHash = hashSecret;

export interface InvitationDeps {
  prisma: PrismaClient;
  db: SqlClient;
  mailer: Mailer;
  config: Pick<FloeConfig, 'baseUrl'>;
}

function invitationMail(to: string, i: { orgName: string; orgHandle: string; inviter: string; role: string; token: string; baseUrl: string; days: number }): OutgoingMail {
  return {
    to,
    subject: `${i.inviter} invited you to ${i.orgName} on Floe`,
    text: `${i.inviter} invited you to join ${i.orgName} (${i.orgHandle}) on Floe as ${i.role === 'admin' ? 'an admin' : 'a member'}.\n\n`
      + `New to Floe? Sign up with this address at ${i.baseUrl}/app/signup — the invitation applies by itself.\n`
      + `Already have an account? Sign in and accept it at ${i.baseUrl}/app/invitation?token=${i.token}\n\n`
      + `Your invitation token, for the API or the command line:\n\n${i.token}\n\n(POST ${i.baseUrl}/v1/orgs/invitations/accept with {"token": "…"}). It works for ${i.days} days.\n`,
  };
}

/** Seconds between two invitation mails of one organisation to one address (as sign-up's re-send rule). */
export const INVITE_RESEND_SECONDS = 60;

/**
 * POST /v1/orgs/{org_id}/invitations: 403 `insufficient_role` for a member,
 * `inviter_unknown` for a caller the mail cannot name, `inviter_unverified`
 * for an address never proven. An address has one pending invitation per
 * organisation: inviting it again replaces the pending one (a new token and
 * role, the old token `invitation_expired`), but no sooner than
 * INVITE_RESEND_SECONDS after the last mail (429 `rate_limited`); a new
 * address past the plan's `pending_invitations` is 409 `limit_exceeded`.
 * Each invitation is a mail, so these hold under concurrency: the
 * organisation's invitations are made under its lock.
 */
export async function invite(d: InvitationDeps, req: Request, ctx: AccessContext, orgIdOrHandle: string, i: { email: string; role: 'admin' | 'member' }) {
  const m = orgAdminFor(ctx, orgIdOrHandle, 'inviting');
  const inviter = ctx.kind === 'human' ? await inviterOf(d.prisma, ctx.principalId) : null;
  if (!inviter?.email) throw forbidden('inviter_unknown', 'an invitation names the person who sends it; a token has no address to name', { remedy: 'invite as a person' });
  if (!inviter.verified) throw forbidden('inviter_unverified', 'your address was never proven; sign up with an e-mail code or reset your password first, then invite');
  const from = inviter.displayName ? `${inviter.displayName} (${inviter.email})` : inviter.email;
  const token = `inv_${randomBytes(24).toString('base64url')}`;
  const { invitation, delivery, replaced } = await d.prisma.$transaction(async (tx) => {
    await lockInvitations(tx, m.orgId);
    // the pause between two mails to one address
    const earlier = await pendingInvitationTo(tx, m.orgId, i.email);
    const since = earlier ? (Date.now() - earlier.createdAt.getTime()) / 1000 : Infinity;
    if (since < INVITE_RESEND_SECONDS) {
      throw rateLimited(Math.ceil(INVITE_RESEND_SECONDS - since), `${i.email} was invited ${Math.floor(since)} s ago; an address is mailed again after ${INVITE_RESEND_SECONDS} s`);
    }
    // the count of pending invitations (one to this address is replaced, not added)
    if (!earlier) {
      const { limits } = await effectiveLimits(tx, m.orgId);
      const current = await countPendingInvitations(tx, m.orgId);
      if (current >= limits.pending_invitations) {
        throw limitExceeded(`an organisation has at most ${limits.pending_invitations} invitations pending; wait for some to be accepted or to expire`, {
          limit: 'pending_invitations', limit_value: limits.pending_invitations, current,
        });
      }
    }
    // The mail first: a server that refuses leaves no invitation behind (and the pending one stands).
    const sent = await d.mailer.send(invitationMail(i.email, {
      orgName: m.name, orgHandle: m.handle, inviter: from, role: i.role, token, baseUrl: d.config.baseUrl, days: INVITATION_DAYS,
    }));
    const ended = await expirePendingTo(tx, m.orgId, i.email);
    const made = await insertInvitation(tx, {
      id: `inv_${randomBytes(12).toString('hex')}`, orgId: m.orgId, email: i.email, role: i.role, tokenHash: tokenHash(token), invitedBy: ctx.principalId,
      expiresAt: new Date(Date.now() + INVITATION_DAYS * 86_400_000),
    });
    return { invitation: made, delivery: sent, replaced: ended > 0 ? earlier!.id : null };
  }, { maxWait: 15_000, timeout: 30_000 });
  await writeAudit(d.db, req, {
    action: 'org.invite', orgId: m.orgId, targetType: 'invitation', targetId: invitation.id,
    data: { email: i.email, role: i.role, delivery, ...(replaced ? { replaced } : {}) },
  });
  return { invitation, token, delivery };
}

export async function listInvitations(prisma: PrismaClient, ctx: AccessContext, orgIdOrHandle: string): Promise<{ orgId: string; invitations: InvitationRecord[] }> {
  const m = orgAdminFor(ctx, orgIdOrHandle, 'reading the invitations');
  return { orgId: m.orgId, invitations: await invitationsOf(prisma, m.orgId) };
}

/** POST /v1/orgs/invitations/accept: the signed-in person with the invited address joins with the invited role (once; again is the same answer). */
export async function acceptInvitation(d: Pick<InvitationDeps, 'prisma' | 'db'>, req: Request, ctx: AccessContext, token: string) {
  const outcome = await d.prisma.$transaction(async (tx) => {
    const inv = await lockInvitation(tx, tokenHash(token));
    if (!inv) throw notFound('invitation_not_found', 'no invitation has this token');
    if (inv.acceptedAt && inv.acceptedBy === ctx.principalId) return { inv, joined: false };
    if (inv.acceptedAt) throw notFound('invitation_not_found', 'no invitation has this token');
    if (inv.expiresAt.getTime() <= Date.now()) throw new HttpError(410, 'invitation_expired', 'this invitation has expired; ask for a new one');
    if (!ctx.email || ctx.email.toLowerCase() !== inv.email.toLowerCase()) {
      throw forbidden('invitation_for_someone_else', `this invitation is for ${inv.email}; sign in with that address`);
    }
    // Two invitations of one address accepted at once: the membership's key lets one join.
    const joined = await joinOnce(tx, { orgId: inv.orgId, principalId: ctx.principalId, role: inv.role, joinedVia: 'invitation', createdBy: inv.invitedBy });
    await markAccepted(tx, inv.id, ctx.principalId);
    // Accepted, joined and audited in one transaction.
    if (joined) {
      await writeAuditIn(tx, req, { action: 'org.invitation_accept', orgId: inv.orgId, targetType: 'invitation', targetId: inv.id, data: { email: inv.email } });
      await writeAuditIn(tx, req, { action: 'org.member_join', orgId: inv.orgId, targetType: 'principal', targetId: ctx.principalId, data: { role: inv.role, via: 'invitation' } });
    }
    return { inv, joined };
  });
  return outcome;
}


/**
 * Sign-up's side of an invitation: a person signing up with an invited
 * address joins the inviting organisation with the invited role (the
 * invitation is spent), and provisions nothing of their own. Null when no
 * invitation waits for the address.
 */
export async function joinByInvitation(d: Pick<InvitationDeps, 'prisma'>, req: Request, p: { principalId: string; email: string }): Promise<InvitationRecord | null> {
  const joined = await d.prisma.$transaction(async (tx) => {
    const pending = await pendingInvitationFor(tx, p.email);
    if (!pending) return null;
    const inv = await lockInvitation(tx, await invitationHashOf(tx, pending.id));
    if (!inv || inv.acceptedAt) return null;
    await joinOnce(tx, { orgId: inv.orgId, principalId: p.principalId, role: inv.role, joinedVia: 'invitation', createdBy: inv.invitedBy });
    await markAccepted(tx, inv.id, p.principalId);
    await writeAuditIn(tx, req, { action: 'org.invitation_accept', orgId: inv.orgId, targetType: 'invitation', targetId: inv.id, data: { email: inv.email, via: 'signup' } });
    await writeAuditIn(tx, req, { action: 'org.member_join', orgId: inv.orgId, targetType: 'principal', targetId: p.principalId, data: { role: inv.role, via: 'invitation' } });
    return inv;
  });
  return joined;
}
