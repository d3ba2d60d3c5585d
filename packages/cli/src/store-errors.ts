// A refusal from the object store, read the one way S3 writes it: the body is
// XML `<Error><Code>…</Code><Message>…</Message>`, and the code and message
// go into the error so the person sees the store's own reason. Both readers
// of objects (table-rows.ts signs its own requests, blob-transfer.ts follows
// a presigned URL) fail through this.
import { CliError } from './errors.js';

/**
 * `the object store refused <doing>: HTTP 404 NoSuchKey: …`, with the hint
 * `hints` gives for the status, if any.
 */
export async function storeRefusal(res: Response, doing: string, hints: Partial<Record<number, string>> = {}): Promise<CliError> {
  const xml = await res.text().catch(() => '');
  const code = /<Code>([^<]*)<\/Code>/.exec(xml)?.[1];
  const message = /<Message>([^<]*)<\/Message>/.exec(xml)?.[1];
  const why = [code, message].filter(Boolean).join(': ');
  return new CliError(`the object store refused ${doing}: HTTP ${res.status}${why ? ` ${why}` : ''}`, undefined, hints[res.status]);
}
