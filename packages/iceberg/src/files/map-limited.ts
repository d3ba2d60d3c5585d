// Reading many small files (manifests, manifest lists) from an object store:
// all at once would open as many connections as there are files and time
// out past the client's socket pool; one at a time waits a round trip each.

/** Manifest and manifest-list reads in flight at once, unless a caller says otherwise. */
export const READS_AT_ONCE = 16;

/** `fn` over `items` with at most `limit` calls pending, results in input order. */
export async function mapLimited<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(Math.max(1, limit), items.length) }, worker));
  return results;
}
