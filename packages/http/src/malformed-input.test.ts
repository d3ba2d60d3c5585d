import { checkJsonValue, isDataException, MAX_JSON_DEPTH } from './malformed-input';
import { HttpError } from './errors';

const refusal = (value: unknown, maxDepth?: number) => {
  try {
    checkJsonValue(value, maxDepth);
  } catch (err) {
    if (err instanceof HttpError) return { status: err.status, code: err.code, field: err.extras.field, message: err.message };
    throw err;
  }
  return null;
};

describe('checkJsonValue', () => {
  test('a NUL in a string names the field by its dotted path', () => {
    expect(refusal({ a: { b: ['ok', 'x\u0000'] } })).toMatchObject({ status: 400, code: 'invalid_value', field: 'a.b.1' });
    expect(refusal('top\u0000')).toMatchObject({ field: 'body' });
  });

  test('a NUL in a key is refused too', () => {
    expect(refusal({ a: { 'k\u0000': 1 } })).toMatchObject({ code: 'invalid_value', field: 'a.k\u0000' });
  });

  test('nesting is bounded at MAX_JSON_DEPTH levels, without recursion', () => {
    let deep: unknown = 1;
    for (let i = 0; i < MAX_JSON_DEPTH; i++) deep = [deep];
    expect(refusal(deep)).toBeNull();
    expect(refusal([deep])).toMatchObject({ code: 'invalid_value', field: 'body', message: `the JSON body nests deeper than ${MAX_JSON_DEPTH} levels` });
    let huge: unknown = {};
    for (let i = 0; i < 100_000; i++) huge = { a: huge };
    expect(refusal(huge)).toMatchObject({ field: 'body' });
  });

  test('a lone surrogate in a string or key is refused; a surrogate pair is one character and passes', () => {
    expect(refusal({ a: ['ok', 'x\ud800'] })).toMatchObject({ status: 400, code: 'invalid_value', field: 'a.1', message: expect.stringMatching(/lone surrogate/) });
    expect(refusal({ a: 'x\udfffy' })).toMatchObject({ field: 'a' });
    expect(refusal({ a: '\ude00\ud83d' })).toMatchObject({ field: 'a' });
    expect(refusal({ ['k\udbff']: 1 })).toMatchObject({ field: 'k\udbff' });
    expect(refusal({ a: 'emoji \ud83d\ude00', ['\ud83d\ude00']: '\u{10ffff}' })).toBeNull();
  });

  test('ordinary bodies, bigints and other characters pass', () => {
    expect(refusal({ n: 2n ** 64n, s: 'tab\tline\nU+001F\u001f é', list: [null, true, 1.5] })).toBeNull();
  });
});

describe('isDataException', () => {
  test('Postgres class 22 by its SQLSTATE, from a database error only', () => {
    expect(isDataException({ code: '22021', severity: 'ERROR' })).toBe(true);
    expect(isDataException({ code: '22P05', severity: 'ERROR' })).toBe(true);
    expect(isDataException({ code: '23505', severity: 'ERROR' })).toBe(false);
    expect(isDataException({ code: '22021' })).toBe(false);
    expect(isDataException(new Error('x'))).toBe(false);
    expect(isDataException(null)).toBe(false);
  });

  test('the same class wrapped by Prisma\'s driver adapter (it used to be a 500 on every Prisma path)', () => {
    const cause = { originalCode: '22P02', originalMessage: 'invalid input syntax for type json', kind: 'InvalidInputValue' };
    expect(isDataException({ name: 'PrismaClientKnownRequestError', code: 'P2007', meta: { driverAdapterError: { name: 'DriverAdapterError', cause } } })).toBe(true);
    expect(isDataException({ name: 'DriverAdapterError', cause })).toBe(true);
    expect(isDataException({ name: 'PrismaClientKnownRequestError', code: 'P2002', meta: { driverAdapterError: { cause: { originalCode: '23505' } } } })).toBe(false);
    expect(isDataException({ name: 'Error', cause })).toBe(false);
  });
});
