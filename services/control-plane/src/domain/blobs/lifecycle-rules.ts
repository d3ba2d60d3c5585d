import { badRequest, HttpError } from '@floe/http';
import { LIFECYCLE_MAX_BYTES, LIFECYCLE_MAX_RULES, lifecycleXml, toS3Rule, type LifecycleRule } from '@floe/storage';
import { reachesSinkRoot, SINK_ROOT } from '@floe/ingest';
import { prefixProblem } from './blob-keys';

// PUT /v1/warehouses/{id}/lifecycle's body, judged whole before the store is
// asked anything: a configuration the store would take but the spec refuses
// (a transition, a zero-day expiry) never reaches it, and nothing is half set.
// Order: shape, then each rule (transitions are `not_supported`, any other
// unknown field `invalid_value` with `accepted`), then ids across rules, then
// the size of the configuration S3 would store (413 `too_large`).

export const RULE_FIELDS = ['id', 'prefix', 'expire_days', 'expire_date', 'abort_incomplete_multipart_days', 'enabled'] as const;
const BODY_FIELDS = ['rules'];
/** S3's longest rule id. */
const MAX_ID_CHARS = 255;
/** Field names that ask for a storage-class transition, which Floe's store offers none of. */
const TRANSITION = /transition|storage_class/i;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

export interface ParsedLifecycle {
  rules: LifecycleRule[];
  xml: string;
}

const invalid = (field: string, message: string, extras: Record<string, unknown> = {}) => badRequest('invalid_value', `${field}: ${message}`, { field, ...extras });

function wholeDays(rule: Record<string, unknown>, name: string, field: string): number | undefined {
  const v = rule[name];
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > 2_147_483_647) throw invalid(field, 'a whole number of days, at least 1');
  return v;
}

function parseRule(raw: unknown, i: number): LifecycleRule {
  const at = `rules[${i}]`;
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw invalid(at, 'each rule is an object');
  const rule = raw as Record<string, unknown>;
  const transition = Object.keys(rule).find((k) => TRANSITION.test(k));
  if (transition) {
    throw badRequest('not_supported', `${at}.${transition}: transitions to another storage class are not supported; rules expire objects or abort incomplete uploads`, { field: `${at}.${transition}` });
  }
  const unknown = Object.keys(rule).find((k) => !(RULE_FIELDS as readonly string[]).includes(k));
  if (unknown) throw invalid(`${at}.${unknown}`, 'not a field of a lifecycle rule', { accepted: [...RULE_FIELDS] });

  const out: LifecycleRule = {};
  if (rule.id !== undefined) {
    if (typeof rule.id !== 'string' || rule.id === '' || rule.id.length > MAX_ID_CHARS || /\p{Cc}/u.test(rule.id)) {
      throw invalid(`${at}.id`, `1 to ${MAX_ID_CHARS} characters, no control characters`);
    }
    out.id = rule.id;
  }
  if (rule.prefix !== undefined) {
    const problem = typeof rule.prefix === 'string' ? prefixProblem(rule.prefix) : 'is not a string';
    if (problem) throw invalid(`${at}.prefix`, `the prefix ${problem}`);
    out.prefix = rule.prefix as string;
  }
  out.expire_days = wholeDays(rule, 'expire_days', `${at}.expire_days`);
  if (rule.expire_date !== undefined) {
    const v = rule.expire_date;
    if (typeof v !== 'string' || !DATE.test(v) || new Date(`${v}T00:00:00Z`).toISOString().slice(0, 10) !== v) throw invalid(`${at}.expire_date`, 'a date, YYYY-MM-DD');
    out.expire_date = v;
  }
  if (out.expire_days !== undefined && out.expire_date !== undefined) throw invalid(at, 'expire_days or expire_date, not both');
  out.abort_incomplete_multipart_days = wholeDays(rule, 'abort_incomplete_multipart_days', `${at}.abort_incomplete_multipart_days`);
  if (out.expire_days === undefined && out.expire_date === undefined && out.abort_incomplete_multipart_days === undefined) {
    throw invalid(at, 'a rule expires objects (expire_days or expire_date) and/or aborts incomplete uploads (abort_incomplete_multipart_days)');
  }
  // An expiry over `_sink/` (a rule without a prefix covers it too) would delete sink batches not yet rolled into their table.
  if ((out.expire_days !== undefined || out.expire_date !== undefined) && reachesSinkRoot(out.prefix ?? '')) {
    throw invalid(`${at}.prefix`, `an expiry may not reach ${SINK_ROOT}, where sink batches wait to be rolled into their tables; give the rule a prefix outside it`, {
      reserved_prefix: SINK_ROOT, remedy: 'set prefix, e.g. "tmp/"; a rule per top-level folder expires the whole bucket but _sink/',
    });
  }
  if (rule.enabled !== undefined) {
    if (typeof rule.enabled !== 'boolean') throw invalid(`${at}.enabled`, 'true or false');
    out.enabled = rule.enabled;
  }
  for (const k of Object.keys(out) as Array<keyof LifecycleRule>) if (out[k] === undefined) delete out[k];
  return out;
}

/** The PUT body as rules and their S3 document, or the refusal the spec gives. */
export function parseLifecycleBody(body: unknown): ParsedLifecycle {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw invalid('body', 'an object {rules: [...]}');
  const b = body as Record<string, unknown>;
  const unknown = Object.keys(b).find((k) => !BODY_FIELDS.includes(k));
  if (unknown) throw invalid(unknown, 'not a field of a lifecycle configuration', { accepted: BODY_FIELDS });
  if (b.rules === undefined) throw badRequest('missing_field', 'rules is required: a list of lifecycle rules', { field: 'rules' });
  if (!Array.isArray(b.rules)) throw invalid('rules', 'a list of lifecycle rules');
  if (b.rules.length === 0) throw invalid('rules', 'at least one rule; DELETE the configuration to have none');
  if (b.rules.length > LIFECYCLE_MAX_RULES) {
    throw new HttpError(413, 'too_large', `at most ${LIFECYCLE_MAX_RULES} rules`, { field: 'rules', limit: LIFECYCLE_MAX_RULES, current: b.rules.length });
  }
  const rules = b.rules.map(parseRule);
  const seen = new Map<string, number>();
  rules.forEach((r, i) => {
    const id = toS3Rule(r, i).ID!;
    if (seen.has(id)) throw invalid(`rules[${i}].id`, `the id ${JSON.stringify(id)} is also rules[${seen.get(id)}]'s`, { duplicate: id });
    seen.set(id, i);
  });
  const xml = lifecycleXml(rules);
  const bytes = Buffer.byteLength(xml, 'utf8');
  if (bytes > LIFECYCLE_MAX_BYTES) {
    throw new HttpError(413, 'too_large', `the configuration would be ${bytes} bytes of XML; at most ${LIFECYCLE_MAX_BYTES}`, { field: 'rules', limit: LIFECYCLE_MAX_BYTES, current: bytes });
  }
  return { rules, xml };
}
