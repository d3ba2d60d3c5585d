import { trafficPerBucket, usageTime } from './usage-log';

test('the usage answer becomes counters per bucket and hour, categories summed, sent = out and received = in', () => {
  const answer = {
    entries: [{
      user: 'floe-admin',
      buckets: [
        { bucket: 'a', epoch: 1795604400, categories: [{ category: 'get_obj', ops: 2, bytes_sent: 30, bytes_received: 0 }, { category: 'put_obj', ops: 1, bytes_sent: 0, bytes_received: 7 }] },
        { bucket: 'a', epoch: 1795600800, categories: [{ category: 'list_bucket', ops: 4, bytes_sent: 100, bytes_received: 0 }] },
        { bucket: 'b', time: '2026-11-25T11:00:00.000000Z', categories: [] },
        { epoch: 1795604400, categories: [{ ops: 9 }] },
      ],
    }],
  };
  const t = trafficPerBucket(answer);
  expect([...t.keys()].sort()).toEqual(['a', 'b']);
  expect(t.get('a')).toEqual([
    { hour: new Date(1795600800_000), requests: 4, bytesIn: 0, bytesOut: 100 },
    { hour: new Date(1795604400_000), requests: 3, bytesIn: 7, bytesOut: 30 },
  ]);
  expect(t.get('b')).toEqual([{ hour: new Date('2026-11-25T11:00:00Z'), requests: 0, bytesIn: 0, bytesOut: 0 }]);
  expect(trafficPerBucket(null).size).toBe(0);
  expect(usageTime(new Date('2026-11-25T11:05:06.789Z'))).toBe('2026-11-25 11:05:06');
});
