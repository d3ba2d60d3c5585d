/** Polls `probe` until it returns something other than null, or fails naming what it waited for. */
export async function until<T>(what: string, probe: () => Promise<T | null>, seconds = 60, everyMs = 300): Promise<T> {
  const deadline = Date.now() + seconds * 1000;
  for (;;) {
    const v = await probe();
    if (v !== null) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
