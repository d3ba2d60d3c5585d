// Which redirect URIs an OAuth client may register or list in its metadata
// document, and whether a request's `redirect_uri` is one the client lists
// (spec: exact, loopback on any port; RFC 8252 7.1, 7.3; OAuth 2.1 2.3.1).
// One home for both rules: registration and the metadata document check with
// the same function.

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);
/** Schemes that are not an app's own (RFC 8252 7.1 private-use) and could run or read something in place of a redirect. */
const NOT_PRIVATE_USE = new Set(['http', 'https', 'javascript', 'data', 'file', 'vbscript', 'blob', 'about', 'ftp', 'ws', 'wss', 'mailto', 'tel', 'urn']);

export type RedirectKind = 'https' | 'loopback' | 'private_use';

function parsed(uri: string): URL | null {
  try {
    return new URL(uri);
  } catch {
    return null;
  }
}

/** The kind of an acceptable redirect URI, or why it is refused. */
export function redirectKind(uri: string): { kind: RedirectKind } | { refused: string } {
  const u = parsed(uri);
  if (!u || uri.length > 2000) return { refused: `${JSON.stringify(uri.slice(0, 200))} is not an absolute URI` };
  if (uri.includes('#')) return { refused: `${uri} has a fragment; a redirect URI may not` };
  if (u.username || u.password) return { refused: `${uri} holds user information; a redirect URI may not` };
  const scheme = u.protocol.slice(0, -1);
  if (scheme === 'https') return u.hostname ? { kind: 'https' } : { refused: `${uri} names no host` };
  if (scheme === 'http') {
    return LOOPBACK_HOSTS.has(u.hostname) ? { kind: 'loopback' } : { refused: `${uri} is plain http to a host other than 127.0.0.1, [::1] or localhost; use https` };
  }
  if (NOT_PRIVATE_USE.has(scheme)) return { refused: `the scheme ${scheme}: is not a redirect scheme` };
  return { kind: 'private_use' };
}

/** Whether `asked` is one of `listed`: exactly, or a loopback http URI differing only in its port. */
export function redirectListed(listed: readonly string[], asked: string): boolean {
  if (listed.includes(asked)) return true;
  const a = parsed(asked);
  if (!a || a.protocol !== 'http:' || !LOOPBACK_HOSTS.has(a.hostname) || asked.includes('#')) return false;
  return listed.some((l) => {
    const r = parsed(l);
    return r !== null && r.protocol === 'http:' && r.hostname === a.hostname && r.pathname === a.pathname && r.search === a.search && !a.username && !a.password;
  });
}
