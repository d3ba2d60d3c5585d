import { ApiError, CliError, describeFailure, envelopeOf, EXIT_FAILED, EXIT_USAGE, Hinted, NetworkError, usageError } from './errors';

describe('describeFailure', () => {
  test('an envelope prints message, code, remedy and request id; never a stack', () => {
    const err = new ApiError(404, { code: 'warehouse_not_found', message: 'no catalog nope', remedy: 'floe catalogs lists yours', request_id: 'req_1' }, 'http://x/v1/connection');
    const { lines, exitCode } = describeFailure(err);
    expect(lines).toEqual(['error: no catalog nope (warehouse_not_found, HTTP 404)', 'remedy: floe catalogs lists yours', 'request id: req_1']);
    expect(exitCode).toBe(EXIT_FAILED);
    expect(lines.join('\n')).not.toMatch(/\bat .*\.ts:\d+/);
  });

  test('a 401 without a remedy says what to do', () => {
  const { lines } = describeFailure(new ApiError(401, { code: 'api_key_revoked', message: 'revoked' }, 'u'));
  expect(lines[1]).toMatch(/floe login.*FLOE_API_KEY/);
});

test('cli_outdated adds a note', () => {
    const sentence = describeFailure(new ApiError(400, { code: 'x', message: 'm', cli_outdated: 'floe 0.2.0 is out' }, 'u')).lines;
    expect(sentence).toContain('note: floe 0.2.0 is out');
    const object = describeFailure(new ApiError(400, { code: 'x', message: 'm', cli_outdated: { latest: '0.3.0' } }, 'u')).lines;
    expect(object.some((l) => l.includes('0.3.0') && l.includes('npm install -g @floe/cli'))).toBe(true);
  });

  test('network failures name the URL; CLI errors keep their exit code and hint', () => {
    expect(describeFailure(new NetworkError('http://127.0.0.1:9/v1/orgs', 'ECONNREFUSED')).lines).toEqual(['error: could not reach http://127.0.0.1:9/v1/orgs: ECONNREFUSED']);
    expect(describeFailure(usageError('bad', 'try this'))).toEqual({ lines: ['error: bad', 'try this'], exitCode: EXIT_USAGE });
    expect(describeFailure(new CliError('denied')).exitCode).toBe(EXIT_FAILED);
    expect(describeFailure(new Hinted(new NetworkError('u', 'r'), 'kept the file')).lines).toEqual(['error: could not reach u: r', 'kept the file']);
  });
});

test('envelopeOf reads only the error envelope', () => {
  expect(envelopeOf({ error: { code: 'slow_down', message: 'm', interval: 10 } })).toMatchObject({ code: 'slow_down', interval: 10 });
  expect(envelopeOf({ error: { code: 'c' } })?.message).toBe('c');
  expect(envelopeOf({ error: 'access_denied', error_description: 'flat OAuth form' })).toEqual({ code: 'access_denied', message: 'flat OAuth form' });
  expect(envelopeOf({ ok: true })).toBeNull();
  expect(envelopeOf(null)).toBeNull();
});
