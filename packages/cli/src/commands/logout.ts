// `floe logout`: revokes the stored agent key (DELETE /v1/api-keys/{key_id},
// authenticated with that key) and removes the stored file. A 401 means the
// key is already dead (revoked, or its agent was), which is what we want.
// When Floe cannot be reached the file is kept, so the key can still be
// revoked later; --force removes it anyway. A key stored with
// `login --with-key` was the person's before, so it is only forgotten.
// FLOE_API_KEY is never revoked.
import type { Command } from 'commander';
import { FloeApi } from '../api-client.js';
import { loginPath, readLogin, removeLogin, type StoredLogin } from '../config-store.js';
import { baseUrlFrom } from '../context.js';
import { ApiError, Hinted } from '../errors.js';
import type { Io } from '../io.js';

export function registerLogout(program: Command, io: Io): void {
  program.command('logout')
    .description('revoke the stored key and forget the login (FLOE_API_KEY is left alone)')
    .option('--force', 'remove the stored login even when its key cannot be revoked')
    .action(async (opts: { force?: boolean }, cmd: Command) => {
      const login = readLogin(io.configDir);
      if (!login) return io.err(`Not logged in: nothing stored in ${loginPath(io.configDir)}.`);
      const base = baseUrlFrom(cmd.optsWithGlobals().baseUrl, io.env, login)!.value;
      if (login.via === 'key') {
        io.out(`Key ${login.key_id} was yours before \`floe login --with-key\` stored it, so it stays live; revoke it on the account page when no longer used.`);
      } else {
        await revoke(io, base, login, Boolean(opts.force));
      }
      removeLogin(io.configDir);
      io.out(`Removed ${loginPath(io.configDir)}.`);
      if (io.env.FLOE_API_KEY) io.err('Note: FLOE_API_KEY is still set in this shell; logout does not touch it.');
    });
}

async function revoke(io: Io, base: string, login: StoredLogin, force: boolean): Promise<void> {
  try {
    const r = await new FloeApi(base, login.api_key).revokeKey(login.key_id);
    io.out(r.already_revoked ? `Key ${login.key_id} was already revoked.` : `Revoked key ${login.key_id} of agent "${login.agent_name}" at ${base}.`);
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) {
      io.out(`Key ${login.key_id} no longer works at ${base} (${err.code}); nothing to revoke.`);
    } else if (force) {
      io.err(`warning: key ${login.key_id} could not be revoked (${(err as Error).message}); it stays live until its agent is revoked on the account page.`);
    } else {
      throw new Hinted(err, `The key could not be revoked, so ${loginPath(io.configDir)} is kept: run \`floe logout\` again, or \`floe logout --force\` to forget it anyway.`);
    }
  }
}
