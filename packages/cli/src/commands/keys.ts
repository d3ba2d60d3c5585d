// `floe keys list|create|revoke`: the API keys of the principal this login
// is (GET, POST /v1/api-keys, DELETE /v1/api-keys/{key_id}). A new key is
// printed once, on stdout alone, so `floe keys create ci > key.txt` keeps it
// out of the terminal's scrollback; Floe keeps only a hash.
import type { Command } from 'commander';
import { ok } from '../api-client.js';
import { act, examples } from '../command.js';
import type { Io } from '../io.js';

export function registerKeys(program: Command, io: Io): void {
  const keys = program.command('keys').description('the API keys of the identity you are logged in as');

  examples(keys.command('list', { isDefault: true })
    .description('list your keys (never their secrets)')
    .action(act(io, async (c) => {
      const { api } = await c.session();
      const answer = await ok(api.http.GET('/v1/api-keys'));
      c.out.result(answer, (a) => {
        if (a.keys.length === 0) return c.out.note('No keys.');
        c.out.table(['KEY ID', 'LABEL', 'STATUS', 'CREATED', 'LAST USED'], a.keys.map((k) => [k.key_id, k.label, k.status, k.created_at, k.last_used_at ?? 'never']));
      });
    })), ['floe keys list', 'floe keys list --json | jq -r ".keys[].key_id"']);

  examples(keys.command('create')
    .description('make another key for yourself; the secret is printed once')
    .argument('<label>', 'what the key is for (1 to 200 characters)')
    .action(act(io, async (c, label: string) => {
      const { api } = await c.session();
      const made = await ok(api.http.POST('/v1/api-keys', { body: { label } }));
      c.out.result(made, (k) => {
        c.out.line(k.api_key);
        c.out.note(`Key ${k.key_id} ("${k.label}") made; the secret above is shown once and Floe keeps only a hash.`);
      });
    })), ['floe keys create ci-runner > ci.key']);

  examples(keys.command('revoke')
    .description('revoke one of your keys at once')
    .argument('<key_id>', 'the key id (from `floe keys list`)')
    .action(act(io, async (c, keyId: string) => {
      const s = await c.session();
      if (s.login?.key_id === keyId && s.key.source === 'login') await c.confirm(`Key ${keyId} is the one this login uses; floe stops working here until you log in again`);
      const revoked = await ok(s.api.http.DELETE('/v1/api-keys/{key_id}', { params: { path: { key_id: keyId } } }));
      c.out.result(revoked, (k) => c.out.note(k.already_revoked ? `Key ${k.key_id} was already revoked.` : `Revoked key ${k.key_id} ("${k.label}").`));
    })), ['floe keys revoke k_3f2a…']);
}
