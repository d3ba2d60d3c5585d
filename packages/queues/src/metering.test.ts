import { creationMeasureJobId, restoreMeasureJobId, sweepMeasureJobId, sweepSlot } from './metering';

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
    for (const id of [sweepMeasureJobId('a-b', 1), creationMeasureJobId('a-b'), restoreMeasureJobId('a-b', 1)]) expect(id).not.toContain(':');
  });

  test('a restore\'s first sample has an id per restore, never the creation\'s (BullMQ keeps that one after it ran)', () => {
    expect(restoreMeasureJobId('w1', 1000)).toBe(restoreMeasureJobId('w1', 1000));
    expect(restoreMeasureJobId('w1', 1000)).not.toBe(restoreMeasureJobId('w1', 2000));
    expect(restoreMeasureJobId('w1', 1000)).not.toBe(restoreMeasureJobId('w2', 1000));
    expect(restoreMeasureJobId('w1', 1000)).not.toBe(creationMeasureJobId('w1'));
  });
});
