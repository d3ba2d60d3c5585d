import type { StoreCredentials } from './clients';

const MAX = 512;

/** Clients kept per credential (least recently used dropped past MAX); they share one agent, so dropping needs no cleanup. */
export class ClientCache {
  private readonly entries = new Map<string, unknown>();

  get<T>(kind: string, c: StoreCredentials, make: () => T): T {
    const key = `${kind}\u0000${c.accessKeyId}\u0000${c.secretAccessKey}\u0000${c.sessionToken ?? ''}`;
    let client = this.entries.get(key) as T | undefined;
    // Map order is insertion order: re-inserting marks the entry most recently used.
    if (client !== undefined) this.entries.delete(key);
    else {
      client = make();
      if (this.entries.size >= MAX) this.entries.delete(this.entries.keys().next().value!);
    }
    this.entries.set(key, client);
    return client;
  }
}
