import { type Replicas, fetchReplica } from '@floe/http';
import type { UsageReport, UsageReportAnswer } from '@floe/queues';

// The control plane's internal route the worker reports to (bootstrap secret), on any of its replicas.

export async function reportUsage(cp: { replicas: Replicas; secret: string }, report: UsageReport): Promise<UsageReportAnswer> {
  const res = await fetchReplica(cp.replicas, '/internal/usage', {
    method: 'POST',
    headers: { authorization: `Bearer ${cp.secret}`, 'content-type': 'application/json' },
    body: JSON.stringify(report),
    signal: AbortSignal.timeout(15_000),
  });
  if (!res.ok) throw new Error(`POST /internal/usage answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
  return (await res.json()) as UsageReportAnswer;
}
