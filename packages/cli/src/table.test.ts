import { renderTable } from './table';

test('columns line up two spaces apart, no trailing blanks', () => {
  expect(renderTable(['NAME', 'LEVEL'], [['lake', 'write'], ['a', 'read']])).toBe('NAME  LEVEL\nlake  write\na     read');
});
