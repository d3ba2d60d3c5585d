import type { FloeConfig } from '@floe/config';

// The roller reports through the control plane's internal routes; it never
// writes sink or batch rows itself.

export interface WorkItem {
  sink_id: string;
  warehouse_id: string;
  namespace: string;
  table_name: string;
  state: 'active' | 'deleted';
  due: boolean;
  due_reason: string | null;
  table_changes_applied: boolean;
}

export interface RollReport {
  batch_ids?: string[];
  snapshot_id?: string | null;
  rows?: number;
  rejected_rows?: number;
  seconds?: number;
  reject_file?: string;
  table_changes_applied?: boolean;
  disabled_reason?: 'table_missing';
  discarded_batch_ids?: string[];
}

async function call(config: FloeConfig, method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(`${config.services.controlPlane}${path}`, {
    method,
    headers: { Authorization: `Bearer ${config.bootstrapSecret}`, ...(body ? { 'Content-Type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
    signal: AbortSignal.timeout(30_000),
  });
  if (!res.ok) throw new Error(`control plane ${method} ${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

export async function worklist(config: FloeConfig): Promise<WorkItem[]> {
  return (await call(config, 'GET', '/internal/sinks')).sinks as WorkItem[];
}

export async function report(config: FloeConfig, sinkId: string, r: RollReport): Promise<void> {
  await call(config, 'POST', `/internal/sinks/${encodeURIComponent(sinkId)}/roll`, r);
}
