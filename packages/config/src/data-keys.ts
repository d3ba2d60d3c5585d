// FLOE_DATA_KEYS: the deployment's data keys, which seal the secrets Floe
// must use again (the warehouses' storage secret keys, the JWT private keys)
// before they reach the database. Comma-separated `<key id>:<base64 of 32
// random bytes>`; the first seals new values, every one listed opens. To
// rotate: list a new key second and roll out (every replica can open it),
// move it first and roll out (it seals), run `npm run secrets:reseal`, then
// drop the old key.

/** One AES-256 key and the id written beside every value it seals. */
export interface DataKey {
  id: string;
  key: Buffer;
}

export const DATA_KEY_BYTES = 32;
const KEY_ID = /^[A-Za-z0-9_-]{1,32}$/;

/** Parses FLOE_DATA_KEYS; throws a message naming the entry at fault (never the key). */
export function parseDataKeys(value: string): DataKey[] {
  const keys: DataKey[] = [];
  for (const [i, entry] of value.split(',').map((e) => e.trim()).filter(Boolean).entries()) {
    const colon = entry.indexOf(':');
    const id = colon < 0 ? '' : entry.slice(0, colon);
    if (!KEY_ID.test(id)) throw new Error(`entry ${i + 1} must be <key id>:<base64 key>, the id 1-32 letters, digits, _ or -`);
    if (keys.some((k) => k.id === id)) throw new Error(`key id ${id} is listed twice`);
    const material = entry.slice(colon + 1);
    const key = Buffer.from(material, 'base64');
    // Buffer.from skips what is not base64; a key that does not encode back was mistyped.
    if (key.length !== DATA_KEY_BYTES || key.toString('base64url') !== material.replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_')) {
      throw new Error(`key ${id} must be ${DATA_KEY_BYTES} bytes in base64 (e.g. openssl rand -base64 32)`);
    }
    keys.push({ id, key });
  }
  return keys;
}
