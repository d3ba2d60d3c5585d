import type { TrafficHour } from '@floe/queues';
import type { HourTraffic } from '@floe/storage';

// A catalog's traffic from RGW's usage log: its two buckets' counters summed
// per UTC hour. A report carries the previous hour and the current one, so an
// hourly sweep completes each hour once it is over (the control plane
// rewrites an hour with the log's totals so far).

/** Where a report's traffic window starts: the beginning of the previous UTC hour. */
export function trafficWindowStart(now: Date): Date {
  return new Date(Math.floor(now.getTime() / 3_600_000) * 3_600_000 - 3_600_000);
}

/** The catalog's hours from the usage log's answer (per bucket), both buckets summed, oldest first. */
export function catalogTraffic(perBucket: Map<string, HourTraffic[]>, buckets: string[], since: Date): TrafficHour[] {
  const hours = new Map<number, TrafficHour>();
  for (const bucket of buckets) {
    for (const h of perBucket.get(bucket) ?? []) {
      const ms = h.hour.getTime();
      if (ms < since.getTime()) continue;
      const t = hours.get(ms) ?? { hour: h.hour.toISOString(), requests: 0, bytes_in: 0, bytes_out: 0 };
      t.requests += h.requests;
      t.bytes_in += h.bytesIn;
      t.bytes_out += h.bytesOut;
      hours.set(ms, t);
    }
  }
  return [...hours.entries()].sort(([a], [b]) => a - b).map(([, t]) => t);
}
