import type { StoredLogin } from './profiles';
import { apiKeyFrom, baseUrlFrom, keyIdOf, requireApiKey, requireBaseUrl } from './context';
import { CliError, EXIT_AUTH, EXIT_USAGE } from './errors';

const login = { base_url: 'http://stored:8080', api_key: 'al_live_stored_s' } as StoredLogin;

describe('base URL precedence', () => {
  test('--base-url, then FLOE_BASE_URL, then the stored login; trailing slashes dropped', () => {
    expect(baseUrlFrom('http://flag:1/', { FLOE_BASE_URL: 'http://env:2' }, login)).toEqual({ value: 'http://flag:1', source: 'flag' });
    expect(baseUrlFrom(undefined, { FLOE_BASE_URL: 'https://env:2//' }, login)).toEqual({ value: 'https://env:2', source: 'env' });
    expect(baseUrlFrom(undefined, {}, login)).toEqual({ value: 'http://stored:8080', source: 'login' });
    expect(baseUrlFrom(undefined, { FLOE_BASE_URL: '' }, null)).toBeNull();
  });

  test('none, or one that is not an http(s) URL, is a usage error', () => {
    for (const call of [() => requireBaseUrl(undefined, {}, null), () => requireBaseUrl('ftp://x', {}, null), () => requireBaseUrl(undefined, { FLOE_BASE_URL: 'nope' }, null)]) {
      try {
        call();
        throw new Error('no error');
      } catch (err) {
        expect(err).toBeInstanceOf(CliError);
        expect((err as CliError).exitCode).toBe(EXIT_USAGE);
      }
    }
    expect(() => requireBaseUrl(undefined, {}, null)).toThrow(/--base-url.*FLOE_BASE_URL.*floe auth login/);
  });
});

describe('the key', () => {
  test('FLOE_API_KEY overrides the stored one', () => {
    expect(apiKeyFrom({ FLOE_API_KEY: 'al_live_env_s' }, login)).toEqual({ value: 'al_live_env_s', source: 'env' });
    expect(apiKeyFrom({}, login)).toEqual({ value: 'al_live_stored_s', source: 'login' });
  });

  test('none is "not logged in", exit 3 (auth)', () => {
    expect(() => requireApiKey({}, null)).toThrow('not logged in');
    expect.assertions(3);
    try {
      requireApiKey({ FLOE_API_KEY: '' }, null);
    } catch (err) {
      expect((err as CliError).exitCode).toBe(EXIT_AUTH);
      expect((err as CliError).code).toBe('not_logged_in');
    }
  });

  test('key id is the part between al_live_ and the next underscore', () => {
    expect(keyIdOf('al_live_abc123_secret_with_underscores')).toBe('abc123');
    expect(keyIdOf('eyJhbGciOi.jwt')).toBeNull();
  });
});
