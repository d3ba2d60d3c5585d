import { CatalogClient, CatalogFailure } from './client';

// Each typed method's request (method, path under the warehouse's prefix,
// body) and how it reads the answer, against a stand-in for fetch. The
// methods against the real catalog are the e2e tests' (control-plane-tables,
// table-delete).

const CATALOG = 'http://catalog.test';

interface Sent {
  method: string;
  path: string;
  body?: unknown;
}

let sent: Sent[];
let answers: Response[];
const realFetch = globalThis.fetch;

beforeEach(() => {
  sent = [];
  answers = [];
  globalThis.fetch = (async (input: string | URL | Request, init: RequestInit = {}) => {
    const url = String(input);
    sent.push({ method: init.method ?? 'GET', path: url.slice(CATALOG.length), ...(init.body ? { body: JSON.parse(String(init.body)) } : {}) });
    return answers.shift() ?? new Response(null, { status: 204 });
  }) as typeof fetch;
});

afterAll(() => {
  globalThis.fetch = realFetch;
});

const client = () => new CatalogClient({ services: { catalog: CATALOG } }, async () => ({ access_token: 'token', expires_in: 3600 }));
const refusal = (status: number, type: string) => Response.json({ error: { message: `refused: ${type}`, type, code: status } }, { status });

describe('namespaceExists', () => {
  test('asks HEAD of the namespace, its levels one %1F-joined segment', async () => {
    expect(await client().namespaceExists('wh_1', ['accounting', 'tax'])).toBe(true);
    expect(sent).toEqual([{ method: 'HEAD', path: '/v1/wh_1/namespaces/accounting%1Ftax' }]);
  });

  test('a 404 is no; any other refusal is thrown', async () => {
    answers.push(new Response(null, { status: 404 }), new Response(null, { status: 503 }));
    expect(await client().namespaceExists('wh_1', ['gone'])).toBe(false);
    await expect(client().namespaceExists('wh_1', ['gone'])).rejects.toMatchObject({ status: 503 });
  });
});

describe('createNamespace', () => {
  test('posts the levels with no properties and answers what the catalog made', async () => {
    answers.push(Response.json({ namespace: ['a', 'b'], properties: {} }));
    expect(await client().createNamespace('wh_1', ['a', 'b'])).toEqual({ namespace: ['a', 'b'], properties: {} });
    expect(sent).toEqual([{ method: 'POST', path: '/v1/wh_1/namespaces', body: { namespace: ['a', 'b'], properties: {} } }]);
  });

  test('an existing namespace is the catalog\'s 409, as a CatalogFailure', async () => {
    answers.push(refusal(409, 'AlreadyExistsException'));
    const err = await client().createNamespace('wh_1', ['a']).catch((e) => e);
    expect(err).toBeInstanceOf(CatalogFailure);
    expect(err).toMatchObject({ status: 409, type: 'AlreadyExistsException', message: 'refused: AlreadyExistsException' });
  });
});

describe('listNamespaces', () => {
  test('the top level, one page', async () => {
    answers.push(Response.json({ namespaces: [['a'], ['b']], 'next-page-token': null }));
    expect(await client().listNamespaces('wh_1')).toEqual([['a'], ['b']]);
    expect(sent).toEqual([{ method: 'GET', path: '/v1/wh_1/namespaces' }]);
  });

  test('the children of a parent, every page: the parent %1F-joined, each page from the last one\'s token', async () => {
    answers.push(
      Response.json({ namespaces: [['a', 'b', 'c']], 'next-page-token': 'YWZ0ZXI6YQ' }),
      Response.json({ namespaces: [['a', 'b', 'd']] }),
    );
    expect(await client().listNamespaces('wh_1', ['a', 'b'])).toEqual([['a', 'b', 'c'], ['a', 'b', 'd']]);
    expect(sent.map((s) => s.path)).toEqual(['/v1/wh_1/namespaces?parent=a%1Fb', '/v1/wh_1/namespaces?parent=a%1Fb&pageToken=YWZ0ZXI6YQ']);
  });
});

describe('listTables', () => {
  test('every page of a namespace\'s tables', async () => {
    answers.push(
      Response.json({ identifiers: [{ namespace: ['a', 'b'], name: 't1' }], 'next-page-token': 'YWZ0ZXI6dDE' }),
      Response.json({ identifiers: [{ namespace: ['a', 'b'], name: 't2' }], 'next-page-token': null }),
    );
    expect(await client().listTables('wh_1', ['a', 'b'])).toEqual([{ namespace: ['a', 'b'], name: 't1' }, { namespace: ['a', 'b'], name: 't2' }]);
    expect(sent.map((s) => s.path)).toEqual(['/v1/wh_1/namespaces/a%1Fb/tables', '/v1/wh_1/namespaces/a%1Fb/tables?pageToken=YWZ0ZXI6dDE']);
  });

  test('a missing namespace is the catalog\'s refusal', async () => {
    answers.push(refusal(404, 'NoSuchNamespaceException'));
    await expect(client().listTables('wh_1', ['gone'])).rejects.toMatchObject({ status: 404, type: 'NoSuchNamespaceException' });
  });
});

describe('dropTable and dropNamespace', () => {
  test('a purge asks purgeRequested; the name is its own encoded segment', async () => {
    await client().dropTable('wh_1', { namespace: ['a', 'b'], name: 'odd name/x' }, { purge: true });
    await client().dropTable('wh_1', { namespace: ['a'], name: 't' });
    expect(sent).toEqual([
      { method: 'DELETE', path: '/v1/wh_1/namespaces/a%1Fb/tables/odd%20name%2Fx?purgeRequested=true' },
      { method: 'DELETE', path: '/v1/wh_1/namespaces/a/tables/t' },
    ]);
  });

  test('a namespace is dropped by its path; a non-empty one is the catalog\'s refusal', async () => {
    await client().dropNamespace('wh_1', ['a', 'b']);
    answers.push(refusal(409, 'NamespaceNotEmptyException'));
    await expect(client().dropNamespace('wh_1', ['a'])).rejects.toMatchObject({ status: 409, type: 'NamespaceNotEmptyException' });
    expect(sent.map((s) => `${s.method} ${s.path}`)).toEqual(['DELETE /v1/wh_1/namespaces/a%1Fb', 'DELETE /v1/wh_1/namespaces/a']);
  });
});
