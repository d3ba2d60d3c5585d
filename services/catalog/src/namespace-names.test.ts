import { namespaceLevelProblem, NewNamespace } from './namespace-names';

describe('namespace levels', () => {
  test.each(['sales', 'odd*ns', 'with space', 'café', 'a-b_c=d', '$x', '~', 'x'.repeat(255)])('%j is a level', (level) => {
    expect(namespaceLevelProblem(level)).toBeNull();
  });

  test.each([
    ['', /empty/],
    ['.', /contains "\."/],
    ['..', /contains "\."/],
    ['a.b', /contains "\."/],
    ['a/b', /contains "\/"/],
    ['a\u0000b', /control character/],
    ['a\u0001b', /control character/],
    ['a\u001fb', /control character/],
    ['a\u007fb', /control character/],
    ['tab\there', /control character/],
    ['x'.repeat(256), /at most 255/],
  ])('%j is refused naming the rule', (level, rule) => {
    expect(namespaceLevelProblem(level)).toMatch(rule);
  });

  test('a namespace has 1-16 levels, each checked', () => {
    expect(NewNamespace.safeParse(['a', 'b']).success).toBe(true);
    expect(NewNamespace.safeParse([]).success).toBe(false);
    expect(NewNamespace.safeParse(Array(17).fill('a')).success).toBe(false);
    const r = NewNamespace.safeParse(['ok', '..']);
    expect(r.success).toBe(false);
    expect(r.error?.issues[0]).toMatchObject({ path: [1], message: expect.stringMatching(/contains "\."/) });
  });
});
