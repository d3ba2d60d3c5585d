import { badRequest } from '@floe/http';

// PATCH /v1/table's body: properties to set and keys to remove, each key
// 1-128 characters of letters, digits, . _ -; `format-version` is reserved.

const PROPERTY_KEY = /^[A-Za-z0-9._-]{1,128}$/;
const RESERVED_PROPERTIES = ['format-version'];

export function propertiesToSet(raw: unknown): Record<string, string> {
  if (raw === undefined || raw === null) return {};
  if (typeof raw !== 'object' || Array.isArray(raw)) throw badRequest('invalid_value', 'properties must be an object of key: value', { field: 'properties' });
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(raw as Record<string, unknown>)) {
    checkKey(k, `properties.${k}`);
    if (v !== null && typeof v === 'object') throw badRequest('invalid_value', `properties.${k}: nested values are refused; send a string`, { field: `properties.${k}` });
    const s = String(v);
    if (s.length > 32768) throw badRequest('invalid_value', `properties.${k}: at most 32768 characters`, { field: `properties.${k}` });
    out[k] = s;
  }
  return out;
}

export function keysToRemove(raw: unknown): string[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw) || raw.some((k) => typeof k !== 'string')) throw badRequest('invalid_value', 'remove must be a list of property keys', { field: 'remove' });
  for (const k of raw as string[]) checkKey(k, 'remove');
  return raw as string[];
}

function checkKey(k: string, field: string): void {
  if (RESERVED_PROPERTIES.includes(k)) {
    throw badRequest('invalid_value', `${k} is reserved; the format version changes only through an engine's upgrade`, { field, reserved: RESERVED_PROPERTIES });
  }
  if (!PROPERTY_KEY.test(k)) throw badRequest('invalid_value', `property keys are 1-128 characters of letters, digits, . _ -`, { field });
}
