import type { Express } from 'express';
import { requireLevel } from '@floe/accounts';
import { CreateUploaderBody } from '@floe/api';
import { resolveWarehouse, findUploader, listUploaders } from '@floe/catalogs';
import { badRequest, notFound, parse, route, writeAudit } from '@floe/http';
import { requireRecentSignIn } from '../access/load';
import type { ControlPlaneDeps } from '../deps';
import { UPLOADER_NAME, UPLOADER_NAME_RULE, defaultPrefix, prefixProblem } from '../domain/uploaders/uploader-rules';
import { createUploader, revokeUploader } from '../domain/uploaders/uploaders';
import { uploaderResponse } from '../uploader-responses';

// Spec: Uploaders (write-only blob credentials) — create, list, revoke.

export function mountUploaders(app: Express, d: ControlPlaneDeps): void {
  const store = { endpoint: d.config.s3Url, region: d.config.s3.region };

  route(app, '/v1/warehouses/:warehouse_id/uploaders', {
    post: [...d.authed, requireRecentSignIn(d.prisma), async (req, res) => {
      // validate
      const body = parse(CreateUploaderBody, req.body);
      if (!UPLOADER_NAME.test(body.name)) throw badRequest('bad_name', UPLOADER_NAME_RULE, { field: 'name', pattern: UPLOADER_NAME.source });
      const prefix = body.prefix ?? defaultPrefix(body.name);
      const problem = prefixProblem(prefix);
      if (problem) throw badRequest('invalid_value', problem, { field: 'prefix' });
      const expiresAt = body.expires_at === null ? null : new Date(body.expires_at);
      if (expiresAt && expiresAt.getTime() <= Date.now()) throw badRequest('invalid_value', 'expires_at must be in the future', { field: 'expires_at' });
      // authorize
      const w = await resolveWarehouse(d.prisma, req.access!, String(req.params.warehouse_id));
      await requireLevel(d.prisma, w, 'write', 'creating an uploader');
      // act
      const made = await createUploader(d, w, { name: body.name, prefix, list: body.list, expiresAt, createdBy: req.access!.principalId });
      await writeAudit(d.db, req, {
        action: 'uploader.create', orgId: w.orgId, targetType: 'uploader', targetId: made.row.id,
        data: { warehouse_id: w.id, name: made.row.name, prefix, list: body.list, iam_user: made.row.iamUser, access_key_id: made.row.accessKeyId, expires_at: body.expires_at },
      });
      // answer
      res.status(201).json({
        ...uploaderResponse(store, made.row, w, { secret: made.secretAccessKey, iamWrites: made.iamWrites }),
        note: 'The secret key is shown once and never stored. The key can PUT under the prefix only: no reads, no deletes, no table bucket, no catalog, no API.',
      });
    }],
    get: [...d.authed, async (req, res) => {
      const w = await resolveWarehouse(d.prisma, req.access!, String(req.params.warehouse_id));
      await requireLevel(d.prisma, w, 'read', 'listing uploaders');
      const rows = await listUploaders(d.prisma, w.id, req.query.include_revoked === 'true');
      res.json({
        warehouse_id: w.id,
        warehouse_name: w.tableBucket,
        bucket: w.blobBucket,
        count: rows.length,
        uploaders: rows.map((u) => uploaderResponse(store, u, w)),
        note: 'Secret keys are shown once, at creation. ?include_revoked=true adds revoked and expired uploaders.',
      });
    }],
  });

  route(app, '/v1/warehouses/:warehouse_id/uploaders/:uploader_id', {
    delete: [...d.authed, requireRecentSignIn(d.prisma), async (req, res) => {
      // authorize
      const w = await resolveWarehouse(d.prisma, req.access!, String(req.params.warehouse_id));
      await requireLevel(d.prisma, w, 'write', 'revoking an uploader');
      const which = String(req.params.uploader_id);
      const found = await findUploader(d.prisma, w.id, which);
      if (!found) throw notFound('uploader_not_found', `catalog ${w.name} has no uploader with id or name ${JSON.stringify(which)}`, { remedy: `GET /v1/warehouses/${w.id}/uploaders?include_revoked=true` });
      // act
      const r = await revokeUploader(d, found, req.access!.principalId);
      if (r.revoked) {
        await writeAudit(d.db, req, {
          action: 'uploader.revoke', orgId: w.orgId, targetType: 'uploader', targetId: r.row.id,
          data: { warehouse_id: w.id, name: r.row.name, iam_user: r.row.iamUser, access_key_id: r.row.accessKeyId, storage: r.storage },
        });
      }
      // answer
      res.json({
        ...uploaderResponse(store, r.row, w, { iamWrites: r.iamWrites }),
        revoked: r.revoked,
        already_revoked: !r.revoked,
        storage: r.storage ?? { access_key: 'absent', user_policy: 'absent', user: 'absent' },
        note: r.revoked
          ? 'The key was deleted first and is refused from now on; then the policy and the storage identity.'
          : `The uploader was already ${r.row.status}; nothing changed.`,
        warning: null,
      });
    }],
  });
}
