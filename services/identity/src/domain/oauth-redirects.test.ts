import { redirectKind, redirectListed } from './oauth-redirects';

describe('redirectKind', () => {
  test.each([
    ['https://app.example.com/callback', 'https'],
    ['http://127.0.0.1:33418/callback', 'loopback'],
    ['http://[::1]/cb', 'loopback'],
    ['http://localhost:8080/cb?x=1', 'loopback'],
    ['com.example.app:/oauth2redirect', 'private_use'],
    ['cursor://anysphere.cursor-retrieval/oauth/callback', 'private_use'],
  ])('%s is %s', (uri, kind) => expect(redirectKind(uri)).toEqual({ kind }));

  test.each([
    'http://app.example.com/cb', 'http://10.0.0.1/cb', 'https://app.example.com/cb#frag', 'https://user:pw@app.example.com/cb',
    'javascript:alert(1)', 'data:text/html,x', 'file:///etc/passwd', 'not a uri', '/relative',
  ])('%s is refused', (uri) => expect(redirectKind(uri)).toHaveProperty('refused'));
});

describe('redirectListed', () => {
  const listed = ['https://app.example.com/cb', 'http://127.0.0.1/callback', 'com.example.app:/cb'];
  test('exact, or loopback on any port', () => {
    expect(redirectListed(listed, 'https://app.example.com/cb')).toBe(true);
    expect(redirectListed(listed, 'http://127.0.0.1:51234/callback')).toBe(true);
    expect(redirectListed(listed, 'com.example.app:/cb')).toBe(true);
  });
  test('anything else is not', () => {
    expect(redirectListed(listed, 'https://app.example.com/cb2')).toBe(false);
    expect(redirectListed(listed, 'https://app.example.com:8443/cb')).toBe(false);
    expect(redirectListed(listed, 'http://127.0.0.1:51234/other')).toBe(false);
    expect(redirectListed(listed, 'http://localhost:51234/callback')).toBe(false);
    expect(redirectListed(listed, 'http://127.0.0.1:51234/callback?x=1')).toBe(false);
    expect(redirectListed(listed, 'https://app.example.com/cb?x=1')).toBe(false);
  });
});
