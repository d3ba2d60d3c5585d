import { chosenRole, givenRole } from './device-role';

describe('chosenRole', () => {
  test('the requested role unless the approver lowers it', () => {
    expect(chosenRole('admin')).toBe('admin');
    expect(chosenRole('member')).toBe('member');
    expect(chosenRole('admin', 'member')).toBe('member');
    expect(chosenRole('admin', 'admin')).toBe('admin');
  });

  test('never above the request: 400 invalid_value on role', () => {
    let refused: unknown;
    try {
      chosenRole('member', 'admin');
    } catch (err) {
      refused = err;
    }
    expect(refused).toMatchObject({ status: 400, code: 'invalid_value', extras: { field: 'role' } });
  });
});

describe('givenRole', () => {
  test('the wanted role, when the approver may give it', () => {
    expect(givenRole('admin', 'admin')).toEqual({ role: 'admin', capped: false });
    expect(givenRole('member', 'admin')).toEqual({ role: 'member', capped: false });
    expect(givenRole('member', 'member')).toEqual({ role: 'member', capped: false });
  });

  test('an admin agent approved by a member is a member, and says it was capped', () => {
    expect(givenRole('admin', 'member')).toEqual({ role: 'member', capped: true });
  });
});
