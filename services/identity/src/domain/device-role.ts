import { badRequest } from '@floe/http';
import type { AgentRole } from '../store/device-logins';

// The role a device login's agent gets (spec: Device authorisation). The
// machine asks for `member` or `admin`; the approver may lower it, never
// raise it past the request; and it is capped like a level is, by the
// approver's own role: a member approving an admin request gives a member.

/** The role the approver wants: `chosen`, or the requested one; 400 `invalid_value` for a choice above the request. */
export function chosenRole(requested: AgentRole, chosen?: AgentRole): AgentRole {
  if (chosen === 'admin' && requested !== 'admin') {
    throw badRequest('invalid_value', 'the machine asked for a member agent; role can lower the requested role, not raise it', { field: 'role' });
  }
  return chosen ?? requested;
}

export interface GivenRole {
  role: AgentRole;
  /** Whether the approver's own role lowered it. */
  capped: boolean;
}

/** The role approval gives: the wanted one, capped by the approver's (a member gives a member). */
export function givenRole(wanted: AgentRole, approver: AgentRole): GivenRole {
  return wanted === 'admin' && approver !== 'admin' ? { role: 'member', capped: true } : { role: wanted, capped: false };
}
