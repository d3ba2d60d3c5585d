import { randomBytes, randomInt } from 'node:crypto';
import { hashSecret } from '@floe/auth';
import { badRequest } from '@floe/http';
import type { DeviceLoginRecord } from '../store/device-logins';

// The codes of a device login (spec: Device code; Limits "device
// authorisation"). The device code is the machine's secret: 32 random bytes,
// shown to it once, kept as SHA-256. The user code is what a person types:
// eight letters from twenty consonants (no vowels, so no words; no I, O, U or
// Y to mistake for 1, 0, V), written XXXX-XXXX, read back whatever the case,
// spacing or dash.

export const DEVICE_CODE_SECONDS = 900;
export const POLL_INTERVAL_SECONDS = 5;
/** The agent a login makes is named `client_name` (by default the host's name), at most as long as an agent's name may be. */
export const AGENT_NAME_MAX = 100;
/** What each `slow_down` adds to the interval. */
export const SLOW_DOWN_STEP_SECONDS = 5;

const ALPHABET = 'BCDFGHJKLMNPQRSTVWXZ';
const USER_CODE = new RegExp(`^[${ALPHABET}]{4}-[${ALPHABET}]{4}$`);

export function newUserCode(): string {
  const c = Array.from({ length: 8 }, () => ALPHABET[randomInt(ALPHABET.length)]).join('');
  return `${c.slice(0, 4)}-${c.slice(4)}`;
}

/** A typed user code in its one spelling; 400 `invalid_value` when it cannot be one. */
export function readUserCode(typed: string): string {
  const letters = typed.toUpperCase().replace(/[\s-]/g, '');
  const code = `${letters.slice(0, 4)}-${letters.slice(4)}`;
  if (letters.length !== 8 || !USER_CODE.test(code)) {
    throw badRequest('invalid_value', `user_code is eight letters written XXXX-XXXX, from ${ALPHABET}`, { field: 'user_code' });
  }
  return code;
}

export const newDeviceCode = (): string => randomBytes(32).toString('base64url');

/** A device code's stored form (the one SHA-256 of a shown-once secret, packages/auth). */
export const deviceCodeHash = hashSecret;

export type DeviceStatus = 'pending' | 'approved' | 'denied' | 'used' | 'expired';

/** The state the spec names: a pending or approved login past its time is expired (the row keeps its last stored state). */
export function statusOf(l: DeviceLoginRecord, now = Date.now()): DeviceStatus {
  if ((l.status === 'pending' || l.status === 'approved') && l.expiresAt.getTime() <= now) return 'expired';
  return l.status;
}

export const expiresIn = (l: DeviceLoginRecord): number => Math.max(0, Math.floor((l.expiresAt.getTime() - Date.now()) / 1000));

/** The new agent's key is labelled after the host. */
export const keyLabelOf = (l: Pick<DeviceLoginRecord, 'client' | 'hostname' | 'clientName'>): string => `${l.client} on ${l.hostname ?? l.clientName}`.slice(0, 200);
