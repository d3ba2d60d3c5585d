import type { Request } from 'express';
import { HttpError, readBodyUpTo } from '@floe/http';
import { DEVICE_BODY_LIMIT, DeviceBodyError, readDeviceBody, type DeviceBody } from './device-body';

/**
 * A device post as the device route and the sink test route read it: the body
 * up to 256 KiB (413 `body_too_large`), then its elements (400
 * `unreadable_body`, 415 `unsupported_media_type`).
 */
export async function readDevicePost(req: Request): Promise<{ bytes: Buffer; body: DeviceBody }> {
  const bytes = await readBodyUpTo(req, DEVICE_BODY_LIMIT, () => new HttpError(413, 'body_too_large',
    `a device post is at most ${DEVICE_BODY_LIMIT} bytes (256 KiB)`, { limit: DEVICE_BODY_LIMIT }, { Connection: 'close' }));
  try {
    return { bytes, body: readDeviceBody(req.get('content-type'), bytes) };
  } catch (err) {
    if (err instanceof DeviceBodyError) throw new HttpError(err.status, err.code, err.message);
    throw err;
  }
}
