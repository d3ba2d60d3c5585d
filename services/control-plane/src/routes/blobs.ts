import type { Express, Request } from 'express';
import { requireLevel, type Level } from '@floe/accounts';
import { requireReady, resolveWarehouse } from '@floe/catalogs';
import { badRequest, HttpError, readBodyUpTo, route } from '@floe/http';
import type { ControlPlaneDeps } from '../deps';
import { attachmentDisposition, checkKey, checkPrefix, clampedInt, flag, refuseFloeOwnedKey, refuseFloeOwnedPrefix } from '../domain/blobs/blob-keys';
import { deleteBlobs, listBlobs, PRESIGN, presignBlob, uploadBlob, type BlobDeps } from '../domain/blobs/blobs';
import { blobListing } from '../responses';

// Spec: GET /v1/warehouses/{id}/blobs and GET …/blobs/presign (read level).
// Floe's shapes (the spec names them only in its error index):
// POST …/blobs/upload?key= with the file's raw bytes as the body and its own
// Content-Type (at most the 1 MB body limit), and DELETE …/blobs?key= or
// ?prefix= (write level). `_sink/` is listed but never written or deleted here.

/** Bodies that are forms, not a file: stored as sent they would be the form's encoding, not the file. */
const FORM_TYPES = /^(multipart\/|application\/x-www-form-urlencoded$)/;
const MEDIA_TYPE = /^[\w!#$&^.+-]+\/[\w!#$&^.+-]+$/;

export function mountBlobs(app: Express, d: ControlPlaneDeps): void {
  const deps: BlobDeps = { prisma: d.prisma, keyring: d.keyring, storage: d.storage, s3Url: d.config.s3Url };

  const warehouseFor = async (req: Request, needed: Level, what: string) => {
    const w = await resolveWarehouse(d.prisma, req.access!, String(req.params.warehouse_id));
    await requireLevel(d.prisma, w, needed, what);
    requireReady(w);
    return w;
  };

  route(app, '/v1/warehouses/:warehouse_id/blobs', {
    get: [...d.authed, async (req, res) => {
      const w = await warehouseFor(req, 'read', 'listing the blob bucket');
      const q = {
        prefix: checkPrefix(req.query.prefix),
        delimiter: req.query.delimiter === undefined ? '/' : String(req.query.delimiter),
        token: req.query.token ? String(req.query.token) : undefined,
        maxKeys: clampedInt(req.query.max_keys, 'max_keys', 1, 1000, 1000),
        urls: flag(req.query.urls, 'urls'),
      };
      if (q.delimiter.length > 16 || /\p{Cc}/u.test(q.delimiter)) throw badRequest('invalid_value', 'delimiter is up to 16 characters, no control characters ("" lists flat)', { field: 'delimiter' });
      const page = await listBlobs(deps, w, q);
      res.json(blobListing(w, q, page));
    }],
    delete: [...d.authed, async (req, res) => {
      // validate
      const w = await warehouseFor(req, 'write', 'deleting blobs');
      const byKey = req.query.key !== undefined;
      if (byKey === (req.query.prefix !== undefined)) {
        throw badRequest(byKey ? 'invalid_value' : 'missing_field', 'name what to delete: ?key=<object key> or ?prefix=<prefix>, one of them', { field: 'key' });
      }
      let what: { key: string } | { prefix: string };
      if (byKey) {
        what = { key: checkKey(req.query.key) };
        refuseFloeOwnedKey(what.key);
      } else {
        what = { prefix: checkPrefix(req.query.prefix) };
        refuseFloeOwnedPrefix(what.prefix);
      }
      // act
      const { deleted, more } = await deleteBlobs(deps, w, what);
      // answer
      res.json({
        warehouse_id: w.id, name: w.name, bucket: w.blobBucket, ...what, deleted, count: deleted.length, more,
        note: more ? 'More objects remain under the prefix: call again to delete the next page.' : deleted.length ? 'Deleted permanently.' : 'Nothing was there to delete.',
      });
    }],
  });

  route(app, '/v1/warehouses/:warehouse_id/blobs/presign', {
    get: [...d.authed, async (req, res) => {
      const w = await warehouseFor(req, 'read', 'presigning a blob download');
      const key = checkKey(req.query.key);
      const expiresIn = clampedInt(req.query.expires, 'expires', PRESIGN.min, PRESIGN.max, PRESIGN.default);
      const download = flag(req.query.download, 'download');
      const signed = await presignBlob(deps, w, { key, expiresInSeconds: expiresIn, contentDisposition: download ? attachmentDisposition(key) : undefined });
      res.json({
        url: signed.url, method: 'GET', key, bucket: w.blobBucket, expires_in: expiresIn, expires_at: signed.expiresAt.toISOString(), download,
      });
    }],
  });

  route(app, '/v1/warehouses/:warehouse_id/blobs/upload', {
    post: [...d.authed, async (req, res) => {
      // validate
      const w = await warehouseFor(req, 'write', 'uploading a blob');
      const key = checkKey(req.query.key);
      refuseFloeOwnedKey(key);
      const contentType = (req.get('content-type') ?? 'application/octet-stream').trim();
      const media = contentType.split(';')[0].trim().toLowerCase();
      if (!MEDIA_TYPE.test(media) || FORM_TYPES.test(media)) {
        throw new HttpError(415, 'unsupported_media_type', `send the file's own bytes as the body with its Content-Type; ${JSON.stringify(contentType)} is ${FORM_TYPES.test(media) ? 'a form encoding' : 'not a media type'}`);
      }
      const limit = d.config.bodyLimitBytes;
      const body = await readBodyUpTo(req, limit, () => new HttpError(413, 'body_too_large', `an upload through the API is at most ${limit} bytes; larger files go straight to the store (an uploader or the catalog credential)`, { limit }));
      // act
      const { etag } = await uploadBlob(deps, w, { key, body, contentType });
      // answer
      res.status(201).json({
        warehouse_id: w.id, name: w.name, bucket: w.blobBucket, key, size: body.length, content_type: contentType, etag, uploaded_at: new Date().toISOString(),
      });
    }],
  });
}
