// `floe auth login --with-key`: stores an API key the person already has
// (read from stdin, never from the command line where `ps` and shell history
// would keep it), after Floe confirms it works: GET /v1/api-keys names its
// principal and label, GET /v1/orgs its organisation, GET /v1/warehouses its
// catalogs. Such a login is `via: key`: logout forgets it but leaves the key live.
import { FloeApi } from '../api-client.js';
import { keyIdOf } from '../context.js';
import { usageError } from '../errors.js';
import { profileNameFor, type StoredLogin } from '../profiles.js';

export async function keyLogin(baseUrl: string, input: string, profile?: string): Promise<StoredLogin> {
  const apiKey = input.trim();
  if (!apiKey) throw usageError('--with-key read no key from stdin', 'Pipe it in: floe auth login --with-key < key.txt');
  const keyId = keyIdOf(apiKey);
  if (!keyId) throw usageError('--with-key takes an API key (al_live_<key_id>_<secret>)');
  const api = new FloeApi(baseUrl, apiKey);
  const keys = await api.keys();
  const [orgs, catalogs] = await Promise.all([api.orgs(), api.warehouses()]);
  const label = keys.keys.find((k) => k.key_id === keyId)?.label ?? keyId;
  return {
    name: profile ?? profileNameFor(baseUrl, orgs[0]?.handle ?? null, keyId),
    via: 'key',
    base_url: baseUrl,
    api_key: apiKey,
    key_id: keyId,
    principal_id: keys.principal_id,
    agent_name: label,
    org_id: orgs[0]?.org_id ?? null,
    org_handle: orgs[0]?.handle ?? null,
    label,
    role: orgs[0]?.role,
    warehouses: catalogs.map((w) => ({ warehouse_id: w.warehouse_id, name: w.name, level: w.my_level })),
    logged_in_at: new Date().toISOString(),
  };
}
