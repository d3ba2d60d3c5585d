// A refusal from a service the tools call (the control plane, the ingest
// gateway), or from the tool itself: the spec's envelope, read back. A tool
// hands it to the assistant as the tool result's error (tool-result.ts), so
// the code, message and remedy the service chose reach the assistant as they
// were written.

export interface Envelope {
  code: string;
  message: string;
  remedy?: string;
  request_id?: string;
  [extra: string]: unknown;
}

export class ServiceRefusal extends Error {
  constructor(readonly status: number, readonly envelope: Envelope) {
    super(envelope.message);
    this.name = 'ServiceRefusal';
  }

  get code(): string {
    return this.envelope.code;
  }
}

/** A refusal the tool server makes itself (a write tool under a read scope, a catalog not in the usage report). */
export const refusal = (status: number, code: string, message: string, extras: Omit<Envelope, 'code' | 'message'> = {}) =>
  new ServiceRefusal(status, { code, message, ...extras });

/** The envelope of a service's non-2xx answer; an answer that is not one (a proxy's page) is described as it is. */
export async function refusalFrom(res: Response, service: string): Promise<ServiceRefusal> {
  const text = await res.text();
  try {
    const body = JSON.parse(text) as { error?: Envelope };
    if (body.error && typeof body.error.code === 'string') return new ServiceRefusal(res.status, body.error);
  } catch {
    // not JSON: described below
  }
  return new ServiceRefusal(res.status, {
    code: res.status >= 500 ? 'service_unavailable' : 'unexpected_answer',
    message: `the ${service} answered ${res.status} without an error envelope`,
    remedy: 'retry in a few seconds; if it persists, report it with the request id',
  });
}
