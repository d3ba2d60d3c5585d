import { handleCandidates, handleFrom, handleProblem } from '@floe/accounts';
import { isValidCatalogName, suggestCatalogName } from './catalog-names';

test.each(['lake', 'sales_2024', 'a', 'a_b_c'])('%s is a valid catalog name', (n) => expect(isValidCatalogName(n)).toBe(true));
test.each(['Lake', 'lake_', '_lake', '2lake', 'a__b', 'sales-data', 'sales data', ''])('%s is not', (n) => expect(isValidCatalogName(n)).toBe(false));

test.each([['Sales-Data_', 'sales_data'], ['2024 numbers', 'c_2024_numbers'], ['__', 'lake'], ['a__b', 'a_b']])('%s suggests %s', (n, s) => {
  expect(suggestCatalogName(n)).toBe(s);
  expect(isValidCatalogName(suggestCatalogName(n))).toBe(true);
});

test('handles: grammar, reserved words, derivation and unique candidates', () => {
  expect(handleProblem('acme')).toBeNull();
  expect(handleProblem('a')).toBeNull();
  expect(handleProblem('ab')).toBe('invalid');
  expect(handleProblem('a--b')).toBe('double_dash');
  expect(handleProblem('-acme')).toBe('invalid');
  expect(handleProblem('admin')).toBe('reserved');
  expect(handleProblem('floe')).toBe('reserved');
  expect(handleFrom('Data Team!')).toBe('data-team');
  expect(handleFrom('API')).toBe('api-team');
  expect(handleFrom('QA')).toBe('qa-team');
  expect(handleFrom('x'.repeat(60))).toHaveLength(40);
  const c = handleCandidates('x'.repeat(40), 3);
  expect(c[1]).toBe(`${'x'.repeat(38)}-2`);
  for (const h of c) expect(handleProblem(h)).toBeNull();
});
