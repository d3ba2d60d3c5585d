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
