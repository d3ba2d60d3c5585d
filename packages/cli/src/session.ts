// The Floe a command talks to, with which key, for commands that need a key
// (whoami, catalogs, connect). Applies context.ts's precedence to the stored
// login and the environment, and says where the key came from.
import { FloeApi } from './api-client.js';
import type { StoredLogin } from './config-store.js';
import { readLogin } from './config-store.js';
import { requireApiKey, requireBaseUrl, type Resolved } from './context.js';
import type { Io } from './io.js';

export interface Session {
  api: FloeApi;
  login: StoredLogin | null;
  baseUrl: Resolved<string>;
  key: Resolved<string>;
}

export function openSession(io: Io, baseUrlFlag: string | undefined): Session {
  const login = readLogin(io.configDir);
  const key = requireApiKey(io.env, login);
  const baseUrl = requireBaseUrl(baseUrlFlag, io.env, login);
  return { api: new FloeApi(baseUrl.value, key.value), login, baseUrl, key };
}
