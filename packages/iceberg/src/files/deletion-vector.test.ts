import { crc32 } from 'node:zlib';
import { InvalidDeletionVector, readDeletionVector, writeDeletionVector } from './deletion-vector.js';

test('positions round trip through array and bitmap containers and high keys', () => {
  const positions = [0n, 1n, 7n, 65535n, 65536n, ...Array.from({ length: 5000 }, (_, i) => 200_000n + BigInt(2 * i)), (5n << 32n) + 3n];
  expect(readDeletionVector(writeDeletionVector([...positions].reverse()))).toEqual(positions);
});

test('the blob is framed as the spec says: length, magic, bitmap, CRC', () => {
  const blob = Buffer.from(writeDeletionVector([3n]));
  expect(blob.readUInt32BE(0)).toBe(blob.length - 8);
  expect([...blob.subarray(4, 8)]).toEqual([0xd1, 0xd3, 0x39, 0x64]);
  const broken = Buffer.from(blob);
  broken[broken.length - 1] ^= 0xff;
  expect(() => readDeletionVector(broken)).toThrow(InvalidDeletionVector);
  expect(() => readDeletionVector(blob.subarray(0, 10))).toThrow(InvalidDeletionVector);
});

test('run containers (as other writers make them) are read', () => {
  // One 32-bit bitmap with a run container [10, 14] under the SERIAL_COOKIE (12347, one container).
  const body = Buffer.concat([
    Buffer.from([0xd1, 0xd3, 0x39, 0x64]),
    Buffer.from([1, 0, 0, 0, 0, 0, 0, 0]), // one 32-bit bitmap
    Buffer.from([0, 0, 0, 0]), // key 0
    Buffer.from([0x3b, 0x30, 0x00, 0x00]), // cookie 12347, size 1
    Buffer.from([1]), // run bitmap: container 0 is a run container
    Buffer.from([0, 0, 4, 0]), // key 0, cardinality 5
    Buffer.from([1, 0, 10, 0, 4, 0]), // one run: start 10, length 4
  ]);
  const head = Buffer.alloc(4);
  head.writeUInt32BE(body.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  expect(readDeletionVector(Buffer.concat([head, body, crc]))).toEqual([10n, 11n, 12n, 13n, 14n]);
});
