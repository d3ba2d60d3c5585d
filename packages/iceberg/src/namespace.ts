// A multi-level namespace as one string, the Iceberg REST spec's way: its
// levels joined by the unit separator U+001F (`%1F` in a URL), a character the
// catalog refuses inside a level. The catalog stores namespaces so (a parent's
// children are then a prefix match), its paths and `parent` query carry them
// so, and every reader of catalog_tables or maintenance_runs splits them so:
// this module is the one spelling of that rule.

/** The separator of a namespace's levels. */
export const NAMESPACE_SEPARATOR = '\u001f';

/** A namespace's levels as one string. */
export const joinNamespace = (levels: readonly string[]): string => levels.join(NAMESPACE_SEPARATOR);

/** One string of a namespace (a stored name, a decoded path segment, a `parent` query) as its levels. */
export const splitNamespace = (text: string): string[] => text.split(NAMESPACE_SEPARATOR);

/** A namespace's levels as one percent-encoded URL path segment (`a%1Fb`). */
export const namespacePathSegment = (levels: readonly string[]): string => encodeURIComponent(joinNamespace(levels));
