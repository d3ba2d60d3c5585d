import { icebergRead } from 'icebird';
import { adminStorage } from './store';

/**
 * Reads a table of a public bucket with icebird, an independent reader, over
 * plain HTTP with no credential: icebird's virtual-host AWS URLs are sent to
 * the store's path-style address instead.
 */
export async function readPublicWithIcebird(s3Url: string, metadata: { location: string }): Promise<any[]> {
  const realFetch = globalThis.fetch;
  globalThis.fetch = ((input: any, init?: any) => {
    const url = String(input instanceof Request ? input.url : input);
    const m = /^https:\/\/([^.]+(?:[^/]*?))\.s3\.amazonaws\.com(\/.*)$/.exec(url);
    return realFetch(m ? `${s3Url}/${m[1]}${m[2]}` : input, init);
  }) as typeof fetch;
  try {
    return await icebergRead({ tableUrl: metadata.location, metadata: metadata as never });
  } finally {
    globalThis.fetch = realFetch;
  }
}

/** The same, for a private bucket: public for the read only. */
export async function readWithIcebird(s3Url: string, bucket: string, metadata: { location: string }): Promise<any[]> {
  const store = adminStorage();
  await store.setPublicRead(bucket, true);
  try {
    return await readPublicWithIcebird(s3Url, metadata);
  } finally {
    await store.setPublicRead(bucket, false);
  }
}
