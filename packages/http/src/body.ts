import type { Request } from 'express';
import type { HttpError } from './errors';

/** The whole body, refused with `tooLarge()` past `limit` bytes without reading the rest into memory. */
export async function readBodyUpTo(req: Request, limit: number, tooLarge: () => HttpError): Promise<Buffer> {
  const declared = Number(req.get('content-length') ?? 0);
  if (declared > limit) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw tooLarge();
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}
