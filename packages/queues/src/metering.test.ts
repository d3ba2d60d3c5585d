import { creationMeasureJobId, sweepMeasureJobId, sweepSlot } from './metering';

describe('metering job ids', () => {
  test('a sweep slot is the due time in whole intervals; a job due slightly early or late keeps it', () => {
    const hour = 3600;
    const due = 1_795_604_400_000; // a whole hour
    expect(sweepSlot(due, hour)).toBe(due / 3_600_000);
    expect(sweepSlot(due - 1500, hour)).toBe(sweepSlot(due, hour));
    expect(sweepSlot(due + 90_000, hour)).toBe(sweepSlot(due, hour));
    expect(sweepSlot(due + 3_600_000, hour)).toBe(sweepSlot(due, hour) + 1);
    expect(sweepSlot(20_000, 10)).toBe(2);
  });

  test('one job id per catalog and slot, another per catalog for the first sample; none has a colon (BullMQ)', () => {
    expect(sweepMeasureJobId('w1', 7)).toBe(sweepMeasureJobId('w1', 7));
    expect(sweepMeasureJobId('w1', 7)).not.toBe(sweepMeasureJobId('w1', 8));
    expect(sweepMeasureJobId('w1', 7)).not.toBe(sweepMeasureJobId('w2', 7));
    expect(creationMeasureJobId('w1')).not.toBe(sweepMeasureJobId('w1', 0));
    for (const id of [sweepMeasureJobId('a-b', 1), creationMeasureJobId('a-b')]) expect(id).not.toContain(':');
  });
});
