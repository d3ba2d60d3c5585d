import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Replicas, connectionRefused, fetchReplica } from './replicas';

// Real sockets: two listening replicas that say who they are, and the address
// of one that is gone (a port that was listened on, then closed: refused).

const servers: http.Server[] = [];
const listen = async (name: string): Promise<string> => {
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => { body += c; });
    req.on('end', () => res.end(JSON.stringify({ name, url: req.url, body })));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};
const gone = async (): Promise<string> => {
  const url = await listen('gone');
  const server = servers.pop()!;
  await new Promise((resolve) => server.close(resolve));
  return url;
};
afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
});

const who = async (r: Replicas, path = '/x', init: RequestInit = {}) => (await (await fetchReplica(r, path, init)).json()) as { name: string; url: string; body: string };

test('calls go to each replica in turn, with the path and query on it', async () => {
  const r = new Replicas([await listen('a'), await listen('b')]);
  const names = [];
  for (let i = 0; i < 4; i++) names.push((await who(r, '/internal/usage?x=1')).name);
  expect(names.sort()).toEqual(['a', 'a', 'b', 'b']);
  expect((await who(r, '/internal/usage?x=1')).url).toBe('/internal/usage?x=1');
});

test('a refused connection goes on to the other replica, body and all, and that replica is passed over for a moment', async () => {
  const down = await gone();
  const r = new Replicas([down, await listen('up')]);
  for (let i = 0; i < 3; i++) {
    expect(await who(r, '/b', { method: 'POST', body: `{"n":${i}}` })).toEqual({ name: 'up', url: '/b', body: `{"n":${i}}` });
  }
  expect(r.pick()).not.toBe(down);
  expect(r.pick()).not.toBe(down);
});

test('every replica refusing: the last refusal is thrown, recognisably', async () => {
  const r = new Replicas([await gone(), await gone()]);
  const err = await fetchReplica(r, '/x').then(() => null, (e: unknown) => e);
  expect(connectionRefused(err)).toBe(true);
  expect(connectionRefused(new Error('reset'))).toBe(false);
  expect(connectionRefused(null)).toBe(false);
});

test('an answer, even a 5xx, is the answer: not sent again', async () => {
  let calls = 0;
  const server = http.createServer((_req, res) => { calls++; res.statusCode = 503; res.end('{}'); });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const r = new Replicas([`http://127.0.0.1:${(server.address() as AddressInfo).port}`, await listen('other')]);
  const answers = [await fetchReplica(r, '/p', { method: 'POST', body: 'x' }), await fetchReplica(r, '/p', { method: 'POST', body: 'x' })];
  expect(answers.map((a) => a.status).sort()).toEqual([200, 503]);
  expect(calls).toBe(1);
});

test('one replica: always it; none: refused at construction', () => {
  const r = new Replicas('http://127.0.0.1:1');
  expect([r.pick(), r.pick()]).toEqual(['http://127.0.0.1:1', 'http://127.0.0.1:1']);
  expect(() => new Replicas([])).toThrow(/at least one replica/);
});
