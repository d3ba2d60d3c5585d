import { ApiError, CliError, describeFailure, envelopeOf, EXIT_AUTH, EXIT_FAILED, EXIT_SERVER, EXIT_USAGE, failureJson, Hinted, NetworkError, usageError } from './errors';

describe('describeFailure', () => {
  test('a refusal is one line: code, message, status, remedy, request id; never a stack', () => {
    const err = new ApiError(404, { code: 'warehouse_not_found', message: 'no catalog nope', remedy: 'floe catalogs lists yours', request_id: 'req_1' }, 'http://x/v1/connection');
    const { lines, exitCode } = describeFailure(err);
    expect(lines).toEqual(['error: warehouse_not_found: no catalog nope (HTTP 404) — floe catalogs lists yours [request req_1]']);
    expect(exitCode).toBe(EXIT_FAILED);
  });

  test('without a remedy in the envelope, one by code, then by status', () => {
    expect(describeFailure(new ApiError(409, { code: 'quota_exceeded', message: 'm' }, 'u')).lines[0]).toMatch(/— see `floe usage`/);
    expect(describeFailure(new ApiError(401, { code: 'api_key_revoked', message: 'revoked' }, 'u')).lines[0]).toMatch(/— the key was refused: run `floe auth login` again, or check FLOE_API_KEY$/);
    expect(describeFailure(new ApiError(429, { code: 'rate_limited', message: 'm', retry_after_seconds: 12 }, 'u')).lines[0]).toMatch(/— wait 12 s and try again$/);
    expect(describeFailure(new ApiError(500, { code: 'internal', message: 'm', request_id: 'r' }, 'u')).lines[0]).toMatch(/quote the request id.*\[request r\]$/);
  });

  test('exit codes: 1 refused, 3 for 401 and 403, 4 for 5xx and no answer', () => {
    expect(describeFailure(new ApiError(409, { code: 'x', message: 'm' }, 'u')).exitCode).toBe(EXIT_FAILED);
    expect(describeFailure(new ApiError(401, { code: 'x', message: 'm' }, 'u')).exitCode).toBe(EXIT_AUTH);
    expect(describeFailure(new ApiError(403, { code: 'insufficient_role', message: 'm' }, 'u')).exitCode).toBe(EXIT_AUTH);
    expect(describeFailure(new ApiError(502, { code: 'storage_error', message: 'm' }, 'u')).exitCode).toBe(EXIT_SERVER);
    expect(describeFailure(new NetworkError('u', 'ECONNREFUSED')).exitCode).toBe(EXIT_SERVER);
  });

  test('cli_outdated adds a note', () => {
    const sentence = describeFailure(new ApiError(400, { code: 'x', message: 'm', cli_outdated: 'floe 0.2.0 is out' }, 'u')).lines;
    expect(sentence).toContain('note: floe 0.2.0 is out');
    const object = describeFailure(new ApiError(400, { code: 'x', message: 'm', cli_outdated: { latest: '0.3.0' } }, 'u')).lines;
    expect(object.some((l) => l.includes('0.3.0') && l.includes('npm install -g @floe/cli'))).toBe(true);
  });

  test('network failures name the URL; CLI errors keep their exit code and hint', () => {
    expect(describeFailure(new NetworkError('http://127.0.0.1:9/v1/orgs', 'ECONNREFUSED')).lines[0]).toMatch(/^error: could not reach http:\/\/127.0.0.1:9\/v1\/orgs: ECONNREFUSED — check the address/);
    expect(describeFailure(usageError('bad', 'try this'))).toEqual({ lines: ['error: bad — try this'], exitCode: EXIT_USAGE });
    expect(describeFailure(new CliError('denied')).exitCode).toBe(EXIT_FAILED);
    expect(describeFailure(new Hinted(new CliError('x', EXIT_AUTH), 'kept the file'))).toEqual({ lines: ['error: x', 'kept the file'], exitCode: EXIT_AUTH });
    expect(describeFailure(new CliError('not logged in', EXIT_AUTH, 'Run `floe auth login`.')).lines).toEqual(['error: not logged in — Run `floe auth login`.']);
  });
});

test('failureJson is the envelope with its remedy, the status and the exit code; CLI failures in the same shape', () => {
  const api = JSON.parse(failureJson(new ApiError(404, { code: 'sink_not_found', message: 'm', request_id: 'r' }, 'u')));
  expect(api).toEqual({ error: { code: 'sink_not_found', message: 'm', request_id: 'r', remedy: 'see `floe sinks list`' }, status: 404, exit_code: EXIT_FAILED });
  expect(JSON.parse(failureJson(new CliError('not logged in', EXIT_AUTH, 'log in', 'not_logged_in')))).toEqual({ error: { code: 'not_logged_in', message: 'not logged in', remedy: 'log in' }, exit_code: EXIT_AUTH });
  expect(JSON.parse(failureJson(new NetworkError('u', 'r'))).error.code).toBe('unreachable');
  expect(JSON.parse(failureJson(usageError('bad'))).error.code).toBe('usage');
});

test('envelopeOf reads only the error envelope', () => {
  expect(envelopeOf({ error: { code: 'slow_down', message: 'm', interval: 10 } })).toMatchObject({ code: 'slow_down', interval: 10 });
  expect(envelopeOf({ error: { code: 'c' } })?.message).toBe('c');
  expect(envelopeOf({ error: 'access_denied', error_description: 'flat OAuth form' })).toEqual({ code: 'access_denied', message: 'flat OAuth form' });
  expect(envelopeOf({ ok: true })).toBeNull();
  expect(envelopeOf(null)).toBeNull();
});
