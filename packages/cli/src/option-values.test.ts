import { InvalidArgumentError } from 'commander';
import { wholeNumber } from './option-values';

test('a whole number within its bounds, or a message that names them', () => {
  const limit = wholeNumber(1, 10_000);
  expect(limit('1')).toBe(1);
  expect(limit('10000')).toBe(10_000);
  for (const bad of ['0', '10001', '2.5', 'ten', '-1', '']) expect(() => limit(bad)).toThrow(new InvalidArgumentError('a whole number from 1 to 10,000'));
  expect(() => wholeNumber(1, 30, 'days')('31')).toThrow('a whole number of days from 1 to 30');
  expect(() => wholeNumber(1)('0')).toThrow('a whole number from 1 up');
  expect(wholeNumber(1)('123456789')).toBe(123_456_789);
});
