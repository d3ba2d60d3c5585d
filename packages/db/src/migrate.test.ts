// Runs the offline migration runner against the real Postgres (127.0.0.1:5432).
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { applyMigrations, createPrisma, diffSchema, dropDatabase, ensureDatabase } from './index';

const server = process.env.TEST_POSTGRES_URL ?? 'postgresql://postgres@127.0.0.1:5432';
const scratchUrl = (prefix: string) => `${server}/${prefix}_${randomBytes(4).toString('hex')}`;

// Native ESM jest has no `jest` global; each hook and test gets this timeout.
const TIMEOUT = 20_000;

describe('migrations', () => {
  const databaseUrl = scratchUrl('floe_test_migrate');

  beforeAll(async () => {
    expect(await ensureDatabase(databaseUrl)).toBe(true);
    expect(await ensureDatabase(databaseUrl)).toBe(false);
  }, TIMEOUT);

  afterAll(async () => {
    await dropDatabase(databaseUrl);
  }, TIMEOUT);

  it('applies pending migrations once', async () => {
    const lines: string[] = [];
    const first = await applyMigrations(databaseUrl, { log: (line) => lines.push(line) });
    expect(first.applied.length).toBeGreaterThan(0);
    expect(lines.length).toBe(first.applied.length);
    expect(await applyMigrations(databaseUrl)).toEqual({ applied: [] });
  }, TIMEOUT);

  it('leaves nothing between the migrations and schema.prisma', async () => {
    expect(await diffSchema(databaseUrl)).toBe('');
  }, TIMEOUT);

  it('creates the tables and records migrations as prisma migrate deploy does', async () => {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      const { rows } = await client.query<{ table_name: string }>(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'",
      );
      expect(rows.map((r) => r.table_name)).toEqual(
        expect.arrayContaining(['principals', 'api_keys', 'signing_keys', 'idempotency_keys', 'audit_events', '_prisma_migrations']),
      );
      const history = await client.query(
        'SELECT checksum, finished_at, applied_steps_count, rolled_back_at FROM _prisma_migrations',
      );
      for (const row of history.rows) {
        expect(row.checksum).toMatch(/^[0-9a-f]{64}$/);
        expect(row.finished_at).not.toBeNull();
        expect(row.rolled_back_at).toBeNull();
        expect(row.applied_steps_count).toBe(1);
      }
    } finally {
      await client.end();
    }
  }, TIMEOUT);

  it('serves a PrismaClient from createPrisma', async () => {
    const prisma = createPrisma(databaseUrl, 2);
    try {
      await prisma.principal.create({ data: { id: 'usr_test', kind: 'human', email: 'a@example.com' } });
      const found = await prisma.principal.findUnique({ where: { id: 'usr_test' } });
      expect(found).toMatchObject({ id: 'usr_test', kind: 'human', status: 'active', email: 'a@example.com' });
      expect(found?.createdAt).toBeInstanceOf(Date);
    } finally {
      await prisma.$disconnect();
    }
  }, TIMEOUT);
});

describe('concurrent applyMigrations', () => {
  const databaseUrl = scratchUrl('floe_test_migrate');

  afterAll(async () => {
    await dropDatabase(databaseUrl);
  }, TIMEOUT);

  it('lets exactly one of two runners apply, and both succeed', async () => {
    await ensureDatabase(databaseUrl);
    const [a, b] = await Promise.all([applyMigrations(databaseUrl), applyMigrations(databaseUrl)]);
    const applied = [a.applied, b.applied].sort((x, y) => y.length - x.length);
    expect(applied[0].length).toBeGreaterThan(0);
    expect(applied[1]).toEqual([]);
    expect(await diffSchema(databaseUrl)).toBe('');
  }, TIMEOUT);
});
