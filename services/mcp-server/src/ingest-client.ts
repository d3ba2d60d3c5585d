import { Replicas, fetchReplica } from '@floe/http';
import { refusalFrom } from './service-refusal';

// The ingest gateway's internal batches route: the send route's intake for
// rows a tool sends. The public send route takes a sink's send key only, so
// the tool server, once the control plane has said the token may write to the
// sink's catalog, hands the rows over with the deployment's bootstrap secret
// and names the token record acting.

export interface SendAnswer {
  accepted: number;
  rejected: number;
  reasons?: Array<{ index: number; reason: string; got: string }>;
  batch_id: string;
  sink_id?: string;
  bytes: number;
  received_at: string;
  state: string;
  duplicate?: boolean;
  note?: string;
}

export class IngestClient {
  private readonly replicas: Replicas;

  /** `targets`: the ingest gateways' internal listeners (config.upstreams.ingestInternal). */
  constructor(targets: string | string[], private readonly bootstrapSecret: string | undefined) {
    this.replicas = new Replicas(targets);
  }

  async sendBatch(o: { sinkId: string; batchId: string; rows: unknown[]; actorId: string; requestId: string }): Promise<SendAnswer> {
    const res = await fetchReplica(this.replicas, `/internal/sinks/${encodeURIComponent(o.sinkId)}/batches`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${this.bootstrapSecret ?? ''}`,
        'Content-Type': 'application/json',
        'Idempotency-Key': o.batchId,
        'X-Floe-Actor-Id': o.actorId,
        'X-Request-Id': o.requestId,
      },
      body: JSON.stringify(o.rows),
      signal: AbortSignal.timeout(60_000),
    });
    if (!res.ok) throw await refusalFrom(res, 'ingest gateway');
    return (await res.json()) as SendAnswer;
  }
}
