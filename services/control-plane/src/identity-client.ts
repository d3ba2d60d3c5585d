import type { FloeConfig } from '@floe/config';
import { HttpError } from '@floe/http';

// The identity service's internal routes, as the control plane calls them
// (the bootstrap secret authenticates the call).

export interface CreatedPrincipal {
  principal_id: string;
  api_key: string;
  key_id: string;
}

/** POST /internal/principals: a new person with a first API key. 503 `service_unavailable` when identity does not answer. */
export async function createPrincipal(config: Pick<FloeConfig, 'services' | 'bootstrapSecret'>, email: string, termsVersion: string): Promise<CreatedPrincipal> {
  let res: Response;
  try {
    res = await fetch(`${config.services.identity}/internal/principals`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${config.bootstrapSecret}` },
      body: JSON.stringify({ kind: 'human', email, label: 'signup', terms_version: termsVersion }),
      signal: AbortSignal.timeout(10_000),
    });
  } catch {
    throw new HttpError(503, 'service_unavailable', 'the identity service is not answering; retry shortly', { retry_after_seconds: 2 }, { 'Retry-After': '2' });
  }
  if (res.status !== 201) throw new Error(`identity refused to create a principal: ${res.status} ${await res.text()}`);
  return (await res.json()) as CreatedPrincipal;
}

/** Records that the person accepted this Terms version (POST /v1/onboard with accept_terms). */
export async function recordTermsAccepted(config: Pick<FloeConfig, 'services' | 'bootstrapSecret'>, principalId: string, version: string): Promise<void> {
  let res: Response;
  try {
    res = await fetch(`${config.services.identity}/internal/principals/${encodeURIComponent(principalId)}/terms`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${config.bootstrapSecret}` },
      body: JSON.stringify({ version }),
      signal: AbortSignal.timeout(10_000),
    });
  } catch {
    throw new HttpError(503, 'service_unavailable', 'the identity service is not answering; retry shortly', { retry_after_seconds: 2 }, { 'Retry-After': '2' });
  }
  if (!res.ok) throw new Error(`identity refused to record the Terms: ${res.status} ${await res.text()}`);
}

/** Sends an invitation mail through identity's mail sender; how it went out. */
export async function mailInvitation(
  config: Pick<FloeConfig, 'services' | 'bootstrapSecret'>,
  m: { to: string; orgName: string; orgHandle: string; inviter: string; role: 'admin' | 'member'; token: string; days: number },
): Promise<'email' | 'log'> {
  let res: Response;
  try {
    res = await fetch(`${config.services.identity}/internal/mail/invitation`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${config.bootstrapSecret}` },
      body: JSON.stringify({ to: m.to, org_name: m.orgName, org_handle: m.orgHandle, inviter: m.inviter, role: m.role, token: m.token, days: m.days }),
      signal: AbortSignal.timeout(30_000),
    });
  } catch {
    throw new HttpError(503, 'service_unavailable', 'the identity service is not answering; retry shortly', { retry_after_seconds: 2 }, { 'Retry-After': '2' });
  }
  const answer = (await res.json().catch(() => null)) as { delivery?: 'email' | 'log'; error?: { code: string; message: string } & Record<string, unknown> } | null;
  if (res.ok && answer?.delivery) return answer.delivery;
  if (answer?.error?.code === 'mail_error') throw new HttpError(502, 'mail_error', answer.error.message, { retry_after_seconds: 5 }, { 'Retry-After': '5' });
  throw new Error(`identity refused to send an invitation: ${res.status} ${JSON.stringify(answer)}`);
}
