// The helpers every part of the blobs page shares: the addresses of a
// catalog's blob routes (`at`, `query`) and `fill`. Its own file because the
// page entry (blobs.js) and its upload, uploaders and lifecycle sections all
// use them, and the entry cannot be imported by those: it draws the page.

/** `el`'s children replaced by those given, skipping the absent ones (as `h` does). */
export const fill = (el, ...children) => el.replaceChildren(...children.filter((c) => c !== null && c !== undefined && c !== false));

/** The path of a catalog's warehouse route: `/v1/warehouses/<w>` and what follows. */
export const at = (w, rest = '') => `/v1/warehouses/${encodeURIComponent(w)}${rest}`;
/** A query string of the given parameters, leaving out the absent ones. */
export const query = (q) => `?${new URLSearchParams(Object.entries(q).filter(([, v]) => v !== undefined && v !== null))}`;
