import { createHash, createHmac, type BinaryLike, type Hash, type Hmac } from 'node:crypto';

/** SHA-256 for the signer, on Node's native crypto (the pure-JS default is several times slower). */
type SourceData = string | ArrayBuffer | ArrayBufferView;
const bytesOf = (d: SourceData): BinaryLike => (d instanceof ArrayBuffer ? Buffer.from(d) : (d as BinaryLike));

export class NodeSha256 {
  private readonly h: Hash | Hmac;
  constructor(secret?: SourceData) {
    this.h = secret === undefined ? createHash('sha256') : createHmac('sha256', bytesOf(secret));
  }
  update(data: SourceData): void {
    this.h.update(bytesOf(data));
  }
  async digest(): Promise<Uint8Array> {
    return this.h.digest();
  }
}
