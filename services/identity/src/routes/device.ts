import type { Express } from 'express';
import { z } from 'zod';
import { parse, route } from '@floe/http';
import type { IdentityDeps } from '../deps';
import { decideDeviceLoginAs, deviceLoginStatus, pendingDeviceLogin } from '../domain/device-approval';
import { AGENT_NAME_MAX, readUserCode } from '../domain/device-codes';
import { pollDeviceLogin, startDeviceLogin } from '../domain/device-login';

// Spec: Device authorisation (command-line login). The machine starts and
// polls without a credential; a person reads, decides and follows the login
// signed in. Answers carrying the device code or the new key are
// `Cache-Control: no-store`.

const Level = z.enum(['read', 'write']);
/** A catalog's id or name as a machine or the page sends it. */
const Ref = z.string().trim().min(1).max(200).regex(/^[A-Za-z0-9_.-]+$/, 'a catalog id or name');
/** Free text a machine names itself with: printable, one line. */
const Text = (max: number) => z.string().trim().min(1).max(max).regex(/^[^\u0000-\u001f\u007f]+$/, 'printable text on one line');

/** A catalog asked for or chosen; without a level, the requested level. */
const Catalog = z.object({ warehouse_id: Ref.optional(), name: Ref.optional(), level: Level.optional() })
  .refine((c) => (c.warehouse_id === undefined) !== (c.name === undefined), 'name a catalog by warehouse_id or by name');
const OneSpelling = { message: 'send warehouses or the older warehouse_ids, not both', path: ['warehouse_ids'] };

const Start = z.object({
  client: z.string().trim().min(1).max(64).regex(/^[A-Za-z0-9_.-]+$/, 'letters, digits, dot, dash, underscore').default('cli'),
  hostname: Text(253).optional(),
  client_name: Text(AGENT_NAME_MAX).optional(),
  requested_level: Level.default('write'),
  warehouses: z.array(Catalog).max(50).optional(),
  warehouse_ids: z.array(Ref).max(50).optional(),
}).refine((b) => !(b.warehouses && b.warehouse_ids), OneSpelling);

const Approve = z.object({
  user_code: z.string().max(64),
  deny: z.boolean().default(false),
  org_id: z.string().trim().min(1).max(200).optional(),
  warehouses: z.array(Catalog).max(50).optional(),
  warehouse_ids: z.array(Ref).max(50).optional(),
  level: Level.optional(),
}).refine((b) => !(b.warehouses && b.warehouse_ids), OneSpelling);

const Lookup = z.object({ user_code: z.string().max(64), org_id: z.string().trim().min(1).max(200).optional() });

export function mountDevice(app: Express, d: IdentityDeps): void {
  const caller = d.auth.requireCaller();

  route(app, '/v1/auth/device', {
    post: async (req, res) => {
      const b = parse(Start, req.body);
      const level = b.requested_level;
      const warehouses = b.warehouses?.map((w) => ({ ...w, level: w.level ?? level })) ?? b.warehouse_ids?.map((name) => ({ name, level })) ?? [];
      const started = await startDeviceLogin(d, req.ip ?? 'unknown', {
        client: b.client, hostname: b.hostname ?? null, clientName: b.client_name ?? null, requestedLevel: level, warehouses,
      });
      res.set('Cache-Control', 'no-store').json(started);
    },
  });

  route(app, '/v1/auth/device/token', {
    post: async (req, res) => {
      const b = parse(z.object({ device_code: z.string().min(1).max(200) }), req.body);
      res.set('Cache-Control', 'no-store').json(await pollDeviceLogin(d, req, b.device_code));
    },
  });

  route(app, '/v1/auth/device/pending', {
    get: [caller, async (req, res) => {
      const q = parse(Lookup, req.query, 'query');
      res.json(await pendingDeviceLogin(d, req, req.caller!, readUserCode(q.user_code), q.org_id));
    }],
  });

  route(app, '/v1/auth/device/approve', {
    post: [caller, async (req, res) => {
      const b = parse(Approve, req.body);
      res.json(await decideDeviceLoginAs(d, req, req.caller!, {
        userCode: readUserCode(b.user_code), deny: b.deny, orgId: b.org_id, warehouses: b.warehouses, warehouseIds: b.warehouse_ids, level: b.level,
      }));
    }],
  });

  route(app, '/v1/auth/device/status', {
    get: [caller, async (req, res) => {
      const q = parse(Lookup, req.query, 'query');
      res.json(await deviceLoginStatus(d, req.caller!, readUserCode(q.user_code)));
    }],
  });
}
