// Catalog credentials as presented to the catalog's token route: client ids
// `t-<uuid>` (read/write) and `t-<uuid>-ro` (read-only), secrets `cs_<43
// base64url>` (issued by the control plane's CatalogSecrets). The bounds are
// generous; they exist so that a value no credential can have is refused as
// an unknown client at once, by the catalog and by identity alike, instead of
// travelling to identity and coming back as an error the catalog cannot
// explain (it answered 503, and engines retry a 503).

export const CATALOG_CLIENT_ID_MAX = 100;
export const CATALOG_CLIENT_SECRET_MAX = 200;

const PRINTABLE_ASCII = /^[\x21-\x7e]+$/;

/** Whether a presented client id and secret could be a catalog credential at all. */
export function couldBeCatalogCredential(clientId: string, clientSecret: string): boolean {
  return clientId.length <= CATALOG_CLIENT_ID_MAX && clientSecret.length <= CATALOG_CLIENT_SECRET_MAX
    && PRINTABLE_ASCII.test(clientId) && PRINTABLE_ASCII.test(clientSecret);
}
