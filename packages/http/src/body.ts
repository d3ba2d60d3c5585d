import type { Request } from 'express';
import type { HttpError } from './errors';

/** The whole body, refused with `tooLarge()` past `limit` bytes without reading the rest into memory. */
export async function readBodyUpTo(req: Request, limit: number, tooLarge: () => HttpError): Promise<Buffer> {
  const declared = Number(req.get('content-length') ?? 0);
  if (declared > limit) throw tooLarge();
  if (declared > 0 && Number.isInteger(declared)) {
    // One buffer of the declared size, filled as the body arrives: no list of chunks joined (the whole body copied again) at
    // the end. Node's parser delivers exactly the declared length, or the read fails when the sender stops short.
    const out = Buffer.allocUnsafe(declared);
    let size = 0;
    for await (const chunk of req) {
      size += (chunk as Buffer).copy(out, size);
    }
    return size === declared ? out : out.subarray(0, size);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw tooLarge();
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}
