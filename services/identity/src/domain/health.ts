import { databaseAnswers } from '@floe/http';
import type { IdentityDeps } from '../deps';

const CATALOG_PROBE_TTL_MS = 5_000;
// A failed probe is retried sooner: at stack start the catalog comes up just after identity.
const CATALOG_PROBE_FAILED_TTL_MS = 1_000;
const CATALOG_PROBE_TIMEOUT_MS = 500;

/**
 * Liveness per the spec: the state database answers and the catalog answers
 * its config route (so `ok` is false, and the answer 503, while the catalog
 * does not: identity alone cannot serve what a credential is for). The catalog probe is cached briefly so a busy health
 * endpoint never fans out to the catalog on every call.
 */
export interface HealthDeps {
  db: IdentityDeps['db'];
  signingKeys: { currentSigner(): Promise<{ kid: string }> };
  config: Pick<IdentityDeps['config'], 'catalogUrl' | 'baseUrl'>;
}

export function createHealthCheck(d: HealthDeps) {
  let catalog = { ok: false, at: 0 };

  async function probeCatalog(): Promise<boolean> {
    if (Date.now() - catalog.at < (catalog.ok ? CATALOG_PROBE_TTL_MS : CATALOG_PROBE_FAILED_TTL_MS)) return catalog.ok;
    let ok = false;
    try {
      const res = await fetch(`${d.config.catalogUrl}/v1/config`, { signal: AbortSignal.timeout(CATALOG_PROBE_TIMEOUT_MS) });
      ok = res.status < 500;
    } catch {
      ok = false;
    }
    catalog = { ok, at: Date.now() };
    return ok;
  }

  return async () => {
    const [dbOk, catalogOk, signer] = await Promise.all([
      databaseAnswers(d.db),
      probeCatalog(),
      d.signingKeys.currentSigner().then((s) => s.kid, () => null),
    ]);
    return { ok: dbOk && catalogOk && signer !== null, catalog_ok: catalogOk, issuer: d.config.baseUrl, kid: signer };
  };
}
