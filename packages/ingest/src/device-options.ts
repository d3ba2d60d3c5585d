import { createHash, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { parseJson, stringifyJson } from '@floe/iceberg';
import type { DeviceElement } from './device-body';

// The sink's body-level options for the device route, applied to each element
// before it is stored: a required field (optionally pinned to a secret value,
// which is then never stored), fields stripped, and a mapping preset.
//   as_is    — the element as sent (its own text when nothing else applies)
//   flatten  — nested objects become top-level fields joined by `separator` ({"a":{"b":1}} → {"a_b":1})
//   wrap     — the whole element, as JSON text, in one string column (`column`, default `payload`)

export const PRESETS = ['as_is', 'flatten', 'wrap'] as const;
export type Preset = (typeof PRESETS)[number];

export interface DeviceOptions {
  required_field: string | null;
  /** SHA-256 (hex) of the value the required field must carry; null when not pinned. */
  pinned_value_sha256: string | null;
  strip_fields: string[];
  preset: Preset;
  preset_params: { separator?: string; column?: string };
}

/** Device options as a sink row stores them (`sinks.device_options`). */
export const StoredDeviceOptions: z.ZodType<DeviceOptions> = z.object({
  required_field: z.string().nullable(),
  pinned_value_sha256: z.string().nullable(),
  strip_fields: z.array(z.string()),
  preset: z.enum(PRESETS),
  preset_params: z.object({ separator: z.string().optional(), column: z.string().optional() }),
});

const DEFAULT_SEPARATOR = '_';
const DEFAULT_WRAP_COLUMN = 'payload';

export const DEFAULT_DEVICE_OPTIONS: DeviceOptions = {
  required_field: null, pinned_value_sha256: null, strip_fields: [], preset: 'as_is', preset_params: {},
};

/** The options as the API shows them: whether a value is pinned, never the value or its hash. */
export function deviceOptionsView(o: DeviceOptions) {
  return {
    required_field: o.required_field,
    pinned: o.pinned_value_sha256 !== null,
    strip_fields: o.strip_fields,
    preset: o.preset,
    preset_params: o.preset === 'flatten' ? { separator: o.preset_params.separator ?? DEFAULT_SEPARATOR }
      : o.preset === 'wrap' ? { column: o.preset_params.column ?? DEFAULT_WRAP_COLUMN } : {},
  };
}

export function pinnedValueHash(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

export interface Applied {
  /** NDJSON lines to store, one per accepted element. */
  lines: string[];
  /** The element index of each line. */
  indexes: number[];
  reasons: Array<{ index: number; reason: string; got: string }>;
  /** A pinned field was missing or wrong in some element: the whole post is refused (401 invalid_device_secret). */
  pin_mismatch: boolean;
}

export function applyDeviceOptions(elements: DeviceElement[], o: DeviceOptions): Applied {
  const out: Applied = { lines: [], indexes: [], reasons: [], pin_mismatch: false };
  const untouched = o.required_field === null && o.strip_fields.length === 0 && o.preset === 'as_is';
  for (let index = 0; index < elements.length; index++) {
    const e = elements[index];
    if (e.kind === 'misfit') {
      out.reasons.push({ index, reason: e.reason, got: e.got });
      continue;
    }
    if (untouched) {
      out.lines.push(e.raw);
      out.indexes.push(index);
      continue;
    }
    let obj: Record<string, unknown>;
    if (e.fields) obj = { ...e.fields };
    else {
      // The body reader's parse has no depth bound; the lossless one does, and
      // an element past it is that element's misfit, not the whole post's 500.
      try {
        obj = parseJson(e.raw) as Record<string, unknown>;
      } catch (err) {
        out.reasons.push({ index, reason: `not readable: ${(err as Error).message.toLowerCase().replace(/ at position \d+$/, '')}`, got: 'object' });
        continue;
      }
    }
    if (o.required_field !== null) {
      const v = obj[o.required_field];
      if (o.pinned_value_sha256 !== null) {
        if (v === undefined || v === null || !sameHash(pinnedValueHash(String(v)), o.pinned_value_sha256)) {
          return { lines: [], indexes: [], reasons: [], pin_mismatch: true };
        }
        delete obj[o.required_field];
      } else if (v === undefined || v === null || v === '') {
        out.reasons.push({ index, reason: `required field ${o.required_field} is missing`, got: 'object' });
        continue;
      }
    }
    for (const f of o.strip_fields) delete obj[f];
    if (o.preset === 'flatten') obj = flatten(obj, o.preset_params.separator ?? DEFAULT_SEPARATOR);
    else if (o.preset === 'wrap') obj = { [o.preset_params.column ?? DEFAULT_WRAP_COLUMN]: stringifyJson(obj) };
    out.lines.push(stringifyJson(obj));
    out.indexes.push(index);
  }
  return out;
}

function sameHash(a: string, b: string): boolean {
  return a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));
}

function flatten(obj: Record<string, unknown>, sep: string, prefix = '', into: Record<string, unknown> = {}): Record<string, unknown> {
  for (const [k, v] of Object.entries(obj)) {
    const name = prefix ? `${prefix}${sep}${k}` : k;
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) flatten(v as Record<string, unknown>, sep, name, into);
    else into[name] = v;
  }
  return into;
}
