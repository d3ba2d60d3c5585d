import type { Express } from 'express';
import { DeviceLoginApproveBody, DeviceLoginLookupQuery, DeviceLoginPollBody, DeviceLoginStartBody } from '@floe/api';
import { parse, route } from '@floe/http';
import type { IdentityDeps } from '../deps';
import { decideDeviceLoginAs, deviceLoginStatus, pendingDeviceLogin } from '../domain/device-approval';
import { readUserCode } from '../domain/device-codes';
import { pollDeviceLogin, startDeviceLogin } from '../domain/device-login';

// Spec: Device authorisation (command-line login). The machine starts and
// polls without a credential; a person reads, decides and follows the login
// signed in. Answers carrying the device code or the new key are
// `Cache-Control: no-store`.

export function mountDevice(app: Express, d: IdentityDeps): void {
  const caller = d.auth.requireCaller();

  route(app, '/v1/auth/device', {
    post: async (req, res) => {
      const b = parse(DeviceLoginStartBody, req.body);
      const level = b.requested_level;
      const warehouses = b.warehouses?.map((w) => ({ ...w, level: w.level ?? level })) ?? b.warehouse_ids?.map((name) => ({ name, level })) ?? [];
      const started = await startDeviceLogin(d, req.ip ?? 'unknown', {
        client: b.client, hostname: b.hostname ?? null, clientName: b.client_name ?? null, requestedLevel: level, requestedRole: b.requested_role, warehouses,
      });
      res.set('Cache-Control', 'no-store').json(started);
    },
  });

  route(app, '/v1/auth/device/token', {
    post: async (req, res) => {
      const b = parse(DeviceLoginPollBody, req.body);
      res.set('Cache-Control', 'no-store').json(await pollDeviceLogin(d, req, b.device_code));
    },
  });

  route(app, '/v1/auth/device/pending', {
    get: [caller, async (req, res) => {
      const q = parse(DeviceLoginLookupQuery, req.query, 'query');
      res.json(await pendingDeviceLogin(d, req, req.caller!, readUserCode(q.user_code), q.org_id));
    }],
  });

  route(app, '/v1/auth/device/approve', {
    post: [caller, async (req, res) => {
      const b = parse(DeviceLoginApproveBody, req.body);
      res.json(await decideDeviceLoginAs(d, req, req.caller!, {
        userCode: readUserCode(b.user_code), deny: b.deny, orgId: b.org_id, warehouses: b.warehouses, warehouseIds: b.warehouse_ids, level: b.level, role: b.role,
      }));
    }],
  });

  route(app, '/v1/auth/device/status', {
    get: [caller, async (req, res) => {
      const q = parse(DeviceLoginLookupQuery, req.query, 'query');
      res.json(await deviceLoginStatus(d, req.caller!, readUserCode(q.user_code)));
    }],
  });
}
