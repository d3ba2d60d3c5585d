import type { FloeConfig } from '@floe/config';
import { HttpError } from '@floe/http';

// The identity service's internal routes, as the control plane calls them
// (the bootstrap secret authenticates the call). An identity that does not
// answer is 503 `service_unavailable`; a mail server that refused a mail is
// relayed as 502 `mail_error`; any other refusal is an internal error.

type IdentityConfig = Pick<FloeConfig, 'services' | 'bootstrapSecret'>;

async function call<T>(config: IdentityConfig, path: string, body: unknown, timeoutMs = 10_000, method: 'POST' | 'PATCH' = 'POST'): Promise<T> {
  let res: Response;
  try {
    res = await fetch(`${config.services.identity}${path}`, {
      method,
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${config.bootstrapSecret}` },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch {
    throw new HttpError(503, 'service_unavailable', 'the identity service is not answering; retry shortly', { retry_after_seconds: 2 }, { 'Retry-After': '2' });
  }
  const answer = (await res.json().catch(() => null)) as (T & { error?: { code: string; message: string } }) | null;
  if (res.ok && answer) return answer;
  if (answer?.error?.code === 'mail_error') throw new HttpError(502, 'mail_error', answer.error.message, { retry_after_seconds: 5 }, { 'Retry-After': '5' });
  throw new Error(`identity refused ${path}: ${res.status} ${JSON.stringify(answer)}`);
}

export interface CreatedPrincipal {
  principal_id: string;
  api_key: string;
  key_id: string;
}

/** A principal made without a key (an OAuth token record: its access tokens are minted by identity, never an API key). */
export interface KeylessPrincipal {
  principal_id: string;
  api_key: null;
  key_id: null;
}

/** POST /internal/principals: a new person with a first API key. */
export function createPrincipal(config: IdentityConfig, email: string, termsVersion: string): Promise<CreatedPrincipal> {
  return call(config, '/internal/principals', { kind: 'human', email, label: 'signup', terms_version: termsVersion });
}

/** POST /internal/principals: an agent (its name the display name) with a first API key labelled `label`. */
export function createAgentPrincipal(config: IdentityConfig, name: string, label: string): Promise<CreatedPrincipal> {
  return call(config, '/internal/principals', { kind: 'agent', display_name: name, label });
}

/** POST /internal/principals: an OAuth token record (kind `mcp`, its name the display name), with no API key at all. */
export function createMcpPrincipal(config: IdentityConfig, name: string): Promise<KeylessPrincipal> {
  return call(config, '/internal/principals', { kind: 'mcp', display_name: name, with_key: false });
}

/** Every key of the principal revoked and the principal suspended, at once (an agent's revocation). */
export async function revokePrincipal(config: IdentityConfig, principalId: string): Promise<{ keys_revoked: number }> {
  return call(config, `/internal/principals/${encodeURIComponent(principalId)}/suspend`, { revoke_keys: true });
}

/** An agent's name is its principal's display name, which identity writes. */
export async function renamePrincipal(config: IdentityConfig, principalId: string, name: string): Promise<void> {
  await call(config, `/internal/principals/${encodeURIComponent(principalId)}`, { display_name: name }, 10_000, 'PATCH');
}

/** Records that the person accepted this Terms version (POST /v1/onboard with accept_terms). */
export async function recordTermsAccepted(config: IdentityConfig, principalId: string, version: string): Promise<void> {
  await call(config, `/internal/principals/${encodeURIComponent(principalId)}/terms`, { version });
}

/** Sends an invitation mail through identity's mail sender; how it went out. */
export async function mailInvitation(
  config: IdentityConfig,
  m: { to: string; orgName: string; orgHandle: string; inviter: string; role: 'admin' | 'member'; token: string; days: number },
): Promise<'email' | 'log'> {
  const answer = await call<{ delivery: 'email' | 'log' }>(config, '/internal/mail/invitation', {
    to: m.to, org_name: m.orgName, org_handle: m.orgHandle, inviter: m.inviter, role: m.role, token: m.token, days: m.days,
  }, 30_000);
  return answer.delivery;
}
