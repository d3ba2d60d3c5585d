import type { LifecycleRule as S3Rule } from '@aws-sdk/client-s3';

// The spec's lifecycle rule (blob bucket only) and its S3 form. Read-back marks
// whether a rule is `expressible` in this model; rules made elsewhere (tags,
// size filters, transitions, noncurrent versions) are reported, not lost.
// The spec's limits on a configuration are counted on its S3 XML document,
// rendered here exactly as S3 defines it, before anything reaches the store.

/** At most this many rules in one configuration (S3's own limit too). */
export const LIFECYCLE_MAX_RULES = 1000;
/** At most this many bytes of configuration XML. */
export const LIFECYCLE_MAX_BYTES = 1024 * 1024;

export interface LifecycleRule {
  id?: string;
  prefix?: string;
  expire_days?: number;
  /** YYYY-MM-DD (midnight UTC, as S3 requires). */
  expire_date?: string;
  abort_incomplete_multipart_days?: number;
  enabled?: boolean;
}

export interface LifecycleRuleView {
  id: string | null;
  prefix: string;
  enabled: boolean;
  expire_days: number | null;
  expire_date: string | null;
  abort_incomplete_multipart_days: number | null;
  expressible: boolean;
  tags?: Record<string, string>;
  size_greater_than?: number;
  size_less_than?: number;
  other?: string[];
}

export function toS3Rule(rule: LifecycleRule, index: number): S3Rule {
  const s3: S3Rule = {
    ID: rule.id ?? `rule-${index + 1}`,
    Status: rule.enabled === false ? 'Disabled' : 'Enabled',
    Filter: { Prefix: rule.prefix ?? '' },
  };
  if (rule.expire_days !== undefined) s3.Expiration = { Days: rule.expire_days };
  if (rule.expire_date !== undefined) s3.Expiration = { Date: new Date(`${rule.expire_date}T00:00:00.000Z`) };
  if (rule.abort_incomplete_multipart_days !== undefined) {
    s3.AbortIncompleteMultipartUpload = { DaysAfterInitiation: rule.abort_incomplete_multipart_days };
  }
  return s3;
}

export function fromS3Rule(s3: S3Rule): LifecycleRuleView {
  const other: string[] = [];
  const filter = s3.Filter ?? {};
  const and = filter.And;
  const tags: Record<string, string> = {};
  for (const t of [...(filter.Tag ? [filter.Tag] : []), ...(and?.Tags ?? [])]) if (t.Key) tags[t.Key] = t.Value ?? '';
  const sizeGt = filter.ObjectSizeGreaterThan ?? and?.ObjectSizeGreaterThan;
  const sizeLt = filter.ObjectSizeLessThan ?? and?.ObjectSizeLessThan;
  if (s3.Transitions?.length) other.push('transitions');
  if (s3.NoncurrentVersionTransitions?.length) other.push('noncurrent_version_transitions');
  if (s3.NoncurrentVersionExpiration) other.push('noncurrent_version_expiration');
  if (s3.Expiration?.ExpiredObjectDeleteMarker) other.push('expired_object_delete_marker');
  const view: LifecycleRuleView = {
    id: s3.ID ?? null,
    prefix: filter.Prefix ?? and?.Prefix ?? s3.Prefix ?? '',
    enabled: s3.Status === 'Enabled',
    expire_days: s3.Expiration?.Days ?? null,
    expire_date: s3.Expiration?.Date ? new Date(s3.Expiration.Date).toISOString().slice(0, 10) : null,
    abort_incomplete_multipart_days: s3.AbortIncompleteMultipartUpload?.DaysAfterInitiation ?? null,
    expressible: Object.keys(tags).length === 0 && sizeGt === undefined && sizeLt === undefined && other.length === 0,
  };
  if (Object.keys(tags).length) view.tags = tags;
  if (sizeGt !== undefined) view.size_greater_than = sizeGt;
  if (sizeLt !== undefined) view.size_less_than = sizeLt;
  if (other.length) view.other = other;
  return view;
}

const escapeXml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c]!);

/** The S3 `LifecycleConfiguration` document of expressible rules (what `xml_bytes` and the 1 MiB limit count). */
export function lifecycleXml(rules: LifecycleRule[]): string {
  const body = rules.map((rule, i) => {
    const s3 = toS3Rule(rule, i);
    let xml = `<Rule><ID>${escapeXml(s3.ID!)}</ID><Filter><Prefix>${escapeXml(s3.Filter!.Prefix!)}</Prefix></Filter><Status>${s3.Status}</Status>`;
    if (s3.Expiration?.Days !== undefined) xml += `<Expiration><Days>${s3.Expiration.Days}</Days></Expiration>`;
    if (s3.Expiration?.Date) xml += `<Expiration><Date>${(s3.Expiration.Date as Date).toISOString()}</Date></Expiration>`;
    if (s3.AbortIncompleteMultipartUpload) {
      xml += `<AbortIncompleteMultipartUpload><DaysAfterInitiation>${s3.AbortIncompleteMultipartUpload.DaysAfterInitiation}</DaysAfterInitiation></AbortIncompleteMultipartUpload>`;
    }
    return `${xml}</Rule>`;
  });
  return `<?xml version="1.0" encoding="UTF-8"?><LifecycleConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/">${body.join('')}</LifecycleConfiguration>`;
}
