import { REJECT_EXAMPLE_CHARS, RollReport, summarizeRejects } from './roll-report';

const reject = (i: number, reason: string, raw = `{"n":${i}}`) => ({ batch_id: `b${i}`, line: i + 1, reason, raw });

test('a roll\'s rejects in brief: the count per reason and the first three lines with their batch ids', () => {
  const s = summarizeRejects([reject(0, 'missing id'), reject(1, 'id is not a long'), reject(2, 'missing id'), reject(3, 'missing id')]);
  expect(s).toEqual({
    reasons: { 'missing id': 3, 'id is not a long': 1 },
    examples: [reject(0, 'missing id'), reject(1, 'id is not a long'), reject(2, 'missing id')],
  });
  expect(RollReport.parse({ reject_summary: s }).reject_summary).toEqual(s);
});

test('past 20 distinct reasons the rest count as other; a long line is cut', () => {
  const many = Array.from({ length: 25 }, (_, i) => reject(i, `reason ${i}`, 'x'.repeat(REJECT_EXAMPLE_CHARS + 100)));
  const s = summarizeRejects([...many, reject(99, 'reason 3')]);
  expect(Object.keys(s.reasons)).toHaveLength(21);
  expect(s.reasons.other).toBe(5);
  expect(s.reasons['reason 3']).toBe(2);
  expect(s.examples[0].raw).toBe(`${'x'.repeat(REJECT_EXAMPLE_CHARS)}…`);
  expect(() => RollReport.parse({ reject_summary: s })).not.toThrow();
});
