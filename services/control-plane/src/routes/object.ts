import type { Express } from 'express';
import { tableWarehouse } from '@floe/catalogs';
import { route } from '@floe/http';
import { stringifyJson } from '@floe/iceberg';
import type { ControlPlaneDeps } from '../deps';
import { askedObject, objectTarget } from '../domain/blobs/object-forms';
import { OBJECT_URL_SECONDS, readObject, type ObjectContent, type ObjectReadDeps } from '../domain/blobs/object-read';
import { iso } from '../responses';

// Spec: GET /v1/object (issue 35's object read; the spec names it in its
// error index only). Floe's shape: `?warehouse=<id or name>&key=<key or
// s3://bucket/key>[&bucket=tables|blobs]`, read level; one object of the
// catalog's table or blob bucket as JSON, text, a Parquet preview or a
// presigned URL (domain/blobs/object-read.ts). The answer is written with the
// lossless JSON writer: a JSON file's 64-bit ids keep every digit.

export function mountObject(app: Express, d: ControlPlaneDeps): void {
  const deps: ObjectReadDeps = { prisma: d.prisma, keyring: d.keyring, storage: d.storage, s3Url: d.config.s3Url, ask: d };

  route(app, '/v1/object', {
    get: [...d.authed, async (req, res) => {
      // validate, authorize
      const asked = askedObject(req.query.key, req.query.bucket);
      const w = await tableWarehouse(d.prisma, req.access!, req.query, 'reading an object');
      const target = objectTarget(w, asked);
      // act
      const { object, content } = await readObject(deps, w, target, req.requestId);
      // answer
      res.type('application/json').send(stringifyJson({
        warehouse: w.name, warehouse_id: w.id, bucket: target.bucket, bucket_kind: target.bucketKind, key: target.key,
        size: object.size, content_type: object.contentType, etag: object.etag, last_modified: iso(object.lastModified),
        ...contentView(content),
      }));
    }],
  });
}

function contentView(c: ObjectContent) {
  switch (c.kind) {
    case 'json': return { kind: c.kind, json: c.json };
    case 'text': return { kind: c.kind, text: c.text };
    case 'parquet': return { kind: c.kind, columns: c.preview.columns, rows: c.preview.rows, row_count: c.preview.row_count, truncated: c.preview.truncated };
    case 'url': return { kind: c.kind, url: c.url, expires_in: OBJECT_URL_SECONDS, expires_at: c.expiresAt.toISOString() };
  }
}
