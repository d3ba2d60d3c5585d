import { readDeviceBody } from './device-body';
import { DEFAULT_DEVICE_OPTIONS, applyDeviceOptions, deviceOptionsView, pinnedValueHash, type DeviceOptions } from './device-options';

const elements = (type: string, body: string) => readDeviceBody(type, Buffer.from(body)).elements;
const opts = (o: Partial<DeviceOptions>): DeviceOptions => ({ ...DEFAULT_DEVICE_OPTIONS, ...o });

test('without options each object is stored as sent; misfits carry their reasons', () => {
  expect(applyDeviceOptions(elements('application/json', '[{"id": 9007199254740993}, null]'), DEFAULT_DEVICE_OPTIONS)).toEqual({
    lines: ['{"id": 9007199254740993}'], indexes: [0], reasons: [{ index: 1, reason: 'not an object', got: 'null' }], pin_mismatch: false,
  });
});

test('a required field rejects the elements without it; stripped fields are removed', () => {
  const r = applyDeviceOptions(elements('application/x-ndjson', '{"id":1,"mac":"x","t":2}\n{"t":3}\n{"id":"","t":4}'),
    opts({ required_field: 'id', strip_fields: ['mac'] }));
  expect(r).toEqual({
    lines: ['{"id":1,"t":2}'],
    indexes: [0],
    reasons: [{ index: 1, reason: 'required field id is missing', got: 'object' }, { index: 2, reason: 'required field id is missing', got: 'object' }],
    pin_mismatch: false,
  });
});

test('a pinned value must match in every element and is never stored', () => {
  const pinned = opts({ required_field: 'secret', pinned_value_sha256: pinnedValueHash('s3cr3t') });
  expect(applyDeviceOptions(elements('application/x-www-form-urlencoded', 'secret=s3cr3t&t=21'), pinned))
    .toEqual({ lines: ['{"t":"21"}'], indexes: [0], reasons: [], pin_mismatch: false });
  expect(applyDeviceOptions(elements('application/x-www-form-urlencoded', 'secret=wrong&t=21'), pinned).pin_mismatch).toBe(true);
  expect(applyDeviceOptions(elements('application/x-ndjson', '{"secret":"s3cr3t"}\n{"t":1}'), pinned).pin_mismatch).toBe(true);
});

test('presets: flatten joins nested names; wrap keeps the element as text in one column', () => {
  const body = '{"id": 12345678901234567890, "env": {"t": 21.5, "h": {"rel": 40}}, "tags": [1]}';
  expect(applyDeviceOptions(elements('application/json', body), opts({ preset: 'flatten', preset_params: { separator: '.' } })).lines)
    .toEqual(['{"id":12345678901234567890,"env.t":21.5,"env.h.rel":40,"tags":[1]}']);
  expect(applyDeviceOptions(elements('application/json', body), opts({ preset: 'wrap', strip_fields: ['tags'] })).lines)
    .toEqual([JSON.stringify({ payload: '{"id":12345678901234567890,"env":{"t":21.5,"h":{"rel":40}}}' })]);
});

test('the view tells whether a value is pinned, never the value', () => {
  expect(deviceOptionsView(opts({ required_field: 'k', pinned_value_sha256: 'ab', preset: 'wrap' })))
    .toEqual({ required_field: 'k', pinned: true, strip_fields: [], preset: 'wrap', preset_params: { column: 'payload' } });
});

test('an element nested deeper than the lossless parser reads is a misfit with its reason, not a failure of the whole post', () => {
  const deep = `${'{"a":'.repeat(1200)}1${'}'.repeat(1200)}`;
  const r = applyDeviceOptions(elements('application/x-ndjson', `{"id":1}\n${deep}`), opts({ strip_fields: ['x'] }));
  expect(r.lines).toEqual(['{"id":1}']);
  expect(r.indexes).toEqual([0]);
  expect(r.reasons).toEqual([{ index: 1, reason: expect.stringMatching(/^not readable: nesting deeper than 1000 levels$/), got: 'object' }]);
});
