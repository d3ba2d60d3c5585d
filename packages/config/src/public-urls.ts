// Whether the public addresses a deployment is given agree with each other.
// FLOE_BASE_URL is the API's address and the issuer and audience of
// control-plane tokens; FLOE_CATALOG_URL is the catalog's own address (a
// separate surface, never routed by the gateway), the audience of catalog
// tokens, and what every connection recipe sends engines to (`catalog_uri`,
// and `{catalog_url}/v1/oauth/tokens` for the credential's secret);
// FLOE_MCP_URL is the audience of the tool server's access tokens. Each is
// fine alone and wrong beside the others in these ways:
// - one address for two audiences: each surface would accept the other's tokens;
// - a catalog on this machine only (loopback) behind a public API: whoever can
//   ask the API for a recipe is sent to a catalog they cannot reach (the usual
//   cause: FLOE_BASE_URL set, FLOE_CATALOG_URL left to its local default);
// - a plain-http catalog behind an https API: engines would send the catalog
//   credential's secret in clear.
// A loopback API beside a public catalog is not refused: its callers are on
// this machine and reach both.

/** One public address as loadConfig resolved it, and where it came from. */
export interface PublicUrl {
  /** The variable that sets it. */
  name: string;
  /** The address in use (no trailing slash). */
  value: string;
  /** Set when the variable is unset: what the address was derived from. */
  derivedFrom?: string;
}

/** What is wrong with the addresses, each message naming the variables at odds; empty when they agree. */
export function publicUrlConflicts(u: { base: PublicUrl; catalog: PublicUrl; mcp: PublicUrl }): string[] {
  const notHttp = [u.base, u.catalog, u.mcp].filter((p) => !httpUrl(p.value))
    .map((p) => `${p.name}: ${said(p)} must be an http or https URL with no query or fragment (paths are appended to it)`);
  if (notHttp.length) return notHttp;
  const conflicts: string[] = [];
  for (const other of [u.base, u.mcp]) {
    if (sameAddress(u.catalog.value, other.value)) {
      const theirs = other === u.base ? 'control-plane tokens' : 'the tool server\'s access tokens';
      conflicts.push(`${u.catalog.name} and ${other.name}: both are ${u.catalog.value}, the audience of catalog tokens and of ${theirs} alike, so each surface would accept the other's tokens; give the catalog its own address`);
    }
  }
  const base = new URL(u.base.value);
  const catalog = new URL(u.catalog.value);
  if (!loopback(base) && loopback(catalog)) {
    conflicts.push(`${u.catalog.name} and ${u.base.name}: the catalog's address ${said(u.catalog)} is on this machine only while the API's ${said(u.base)} is not, so every connection recipe would send engines to a catalog they cannot reach; set ${u.catalog.name} to the catalog's public address`);
  } else if (base.protocol === 'https:' && catalog.protocol === 'http:' && !loopback(catalog)) {
    conflicts.push(`${u.catalog.name} and ${u.base.name}: the catalog's address ${said(u.catalog)} is plain http while the API's ${said(u.base)} is https, so engines would send the catalog credential's secret in clear; serve the catalog over https`);
  }
  return conflicts;
}

const said = (p: PublicUrl) => (p.derivedFrom ? `${p.value} (unset, so derived from ${p.derivedFrom})` : p.value);

function httpUrl(v: string): boolean {
  try {
    const url = new URL(v);
    return (url.protocol === 'http:' || url.protocol === 'https:') && !url.search && !url.hash && !v.includes('#') && !v.includes('?');
  } catch {
    return false;
  }
}

/** The same address once the URL parser has normalised case, default ports and trailing slashes. */
const sameAddress = (a: string, b: string) => new URL(a).href.replace(/\/+$/, '') === new URL(b).href.replace(/\/+$/, '');

/** Reachable from this machine only: `localhost` (and names under it), 127.0.0.0/8, ::1. */
function loopback(url: URL): boolean {
  const host = url.hostname.toLowerCase();
  return host === 'localhost' || host.endsWith('.localhost') || /^127(\.\d{1,3}){3}$/.test(host) || host === '[::1]';
}
