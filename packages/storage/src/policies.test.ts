import { isLifecycleStatement, publicReadStatement } from './policies';

test('a statement is about lifecycle when its actions cover setting one, wildcards included', () => {
  expect(isLifecycleStatement({ Effect: 'Allow', Action: 's3:PutLifecycleConfiguration' })).toBe(true);
  expect(isLifecycleStatement({ Effect: 'Allow', Action: ['s3:GetObject', 's3:putlifecycle*'] })).toBe(true);
  expect(isLifecycleStatement({ Effect: 'Allow', Action: ['s3:*'] })).toBe(true);
  expect(isLifecycleStatement({ Effect: 'Allow', Action: '*' })).toBe(true);
  expect(isLifecycleStatement({ Effect: 'Allow', NotAction: ['s3:GetObject'] })).toBe(true);
  expect(isLifecycleStatement({ Effect: 'Allow', NotAction: ['s3:Put*'] })).toBe(false);
  expect(isLifecycleStatement({ Effect: 'Allow', Action: ['s3:PutObject', 's3:Get*'] })).toBe(false);
  expect(isLifecycleStatement(publicReadStatement('b'))).toBe(false);
});
