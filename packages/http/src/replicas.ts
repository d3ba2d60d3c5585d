// A service's replicas as its callers see them (config.upstreams: the
// gateway's proxy, and the services that call each other): each call goes to
// the next in turn, and a replica that refused a connection (restarting, or
// gone) is passed over for a moment. A refused connection never reached the
// service, so the call can go to another replica with no risk of doing it
// twice; any other failure (a reset, a timeout) may have, and is the caller's.

/** How long a replica that refused a connection is passed over. */
export const REFUSED_PAUSE_MS = 2000;

export class Replicas {
  private readonly pausedUntil = new Map<string, number>();
  private turn = 0;
  readonly list: string[];

  constructor(targets: string | string[]) {
    this.list = [targets].flat();
    if (this.list.length === 0) throw new Error('a service needs at least one replica address');
  }

  /** The next replica in turn, passing over `except` and those paused while any other is not. */
  pick(except?: string): string {
    if (this.list.length === 1) return this.list[0];
    const others = this.list.filter((t) => t !== except);
    const live = others.filter((t) => (this.pausedUntil.get(t) ?? 0) <= Date.now());
    const from = live.length ? live : others.length ? others : this.list;
    this.turn = (this.turn + 1) % 1_000_000;
    return from[this.turn % from.length];
  }

  /** `target` refused a connection: pass it over for REFUSED_PAUSE_MS. */
  refused(target: string): void {
    this.pausedUntil.set(target, Date.now() + REFUSED_PAUSE_MS);
  }
}

/** Whether a failed fetch or proxied request never reached the service: its connection was refused. */
export function connectionRefused(err: unknown): boolean {
  const e = err as { code?: string; cause?: { code?: string } } | null;
  return e?.code === 'ECONNREFUSED' || e?.cause?.code === 'ECONNREFUSED';
}

/**
 * fetch `path` on one of the replicas; a refused connection goes on to each
 * other replica once, and the last refusal is thrown. The body must be one
 * that can be sent again (a string or a buffer, not a stream).
 */
export async function fetchReplica(replicas: Replicas, path: string, init: RequestInit = {}): Promise<Response> {
  const tried = new Set<string>();
  let target = replicas.pick();
  for (;;) {
    tried.add(target);
    try {
      return await fetch(new URL(path, `${target}/`), init);
    } catch (err) {
      if (!connectionRefused(err)) throw err;
      replicas.refused(target);
      const next = replicas.pick(target);
      if (tried.has(next)) throw err;
      target = next;
    }
  }
}
