// RGW's usage log as the admin usage API answers it (GET /admin/usage):
// entries per owner, then per bucket and UTC hour, each with categories
// (get_obj, put_obj, list_bucket, …) counting operations and bytes. Only
// counters: the log holds no object keys. Enabled by `rgw enable usage log`
// (infra/ceph); RGW flushes it every `rgw usage log tick interval` seconds.

export interface HourTraffic {
  /** Start of the UTC hour. */
  hour: Date;
  requests: number;
  bytesIn: number;
  bytesOut: number;
}

interface UsageAnswer {
  entries?: Array<{ buckets?: Array<{ bucket?: string; epoch?: number; time?: string; categories?: Array<{ ops?: number; bytes_sent?: number; bytes_received?: number }> }> }>;
}

/** The answer's counters per bucket and hour (categories summed); bytes sent by the store are bytes out, received are bytes in. */
export function trafficPerBucket(answer: UsageAnswer | null): Map<string, HourTraffic[]> {
  const out = new Map<string, Map<number, HourTraffic>>();
  for (const entry of answer?.entries ?? []) {
    for (const b of entry.buckets ?? []) {
      if (!b.bucket) continue;
      const ms = typeof b.epoch === 'number' ? b.epoch * 1000 : Date.parse(b.time ?? '');
      if (!Number.isFinite(ms)) continue;
      const hours = out.get(b.bucket) ?? new Map<number, HourTraffic>();
      const h = hours.get(ms) ?? { hour: new Date(ms), requests: 0, bytesIn: 0, bytesOut: 0 };
      for (const c of b.categories ?? []) {
        h.requests += c.ops ?? 0;
        h.bytesIn += c.bytes_received ?? 0;
        h.bytesOut += c.bytes_sent ?? 0;
      }
      hours.set(ms, h);
      out.set(b.bucket, hours);
    }
  }
  return new Map([...out].map(([bucket, hours]) => [bucket, [...hours.values()].sort((a, b) => a.hour.getTime() - b.hour.getTime())]));
}

/** The admin usage API's time format (UTC, to the second). */
export const usageTime = (d: Date): string => d.toISOString().slice(0, 19).replace('T', ' ');
