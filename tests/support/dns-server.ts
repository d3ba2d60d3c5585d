import { createSocket, type RemoteInfo, type Socket } from 'node:dgram';

// A tiny authoritative DNS server on loopback (UDP, RFC 1035 wire format) for
// tests of the domain DNS proof: it answers TXT queries for the names a test
// registers, NODATA for another type at such a name, NXDOMAIN for every other
// name; `mode` makes it drop every query (a resolver timing out) or answer
// SERVFAIL or REFUSED. No recursion, no compression in what it reads, no
// EDNS in what it answers (a resolver takes a plain answer to an EDNS query).

export type DnsMode = 'answer' | 'drop' | 'servfail' | 'refused';

export interface TestDnsServer {
  /** `127.0.0.1:<port>`, as FLOE_DNS_SERVERS takes it. */
  address: string;
  port: number;
  mode: DnsMode;
  /** Adds TXT values at a name (case-insensitive, no trailing dot); several values are several records. */
  addTxt(name: string, ...values: string[]): void;
  /** Replaces every TXT value at a name. */
  setTxt(name: string, ...values: string[]): void;
  /** Queries received (answered or not), by lower-case name. */
  queries: string[];
  close(): Promise<void>;
}

const TYPE_TXT = 16;
const CLASS_IN = 1;
const RCODE = { noerror: 0, servfail: 2, nxdomain: 3, refused: 5 } as const;

interface Question { id: number; flags: number; name: string; type: number; end: number }

/** The header and first question of a query; null for anything it cannot read (dropped). */
function readQuery(msg: Buffer): Question | null {
  if (msg.length < 12 || msg.readUInt16BE(4) < 1) return null;
  const labels: string[] = [];
  let at = 12;
  for (;;) {
    if (at >= msg.length) return null;
    const len = msg[at];
    if (len === 0) { at += 1; break; }
    if (len > 63 || at + 1 + len > msg.length) return null;
    labels.push(msg.toString('latin1', at + 1, at + 1 + len));
    at += 1 + len;
  }
  if (at + 4 > msg.length) return null;
  return { id: msg.readUInt16BE(0), flags: msg.readUInt16BE(2), name: labels.join('.'), type: msg.readUInt16BE(at), end: at + 4 };
}

/** A TXT record's data: its value cut into character-strings of at most 255 bytes. */
function txtData(value: string): Buffer {
  const bytes = Buffer.from(value, 'utf8');
  const parts: Buffer[] = [];
  for (let i = 0; i === 0 || i < bytes.length; i += 255) {
    const chunk = bytes.subarray(i, i + 255);
    parts.push(Buffer.from([chunk.length]), chunk);
  }
  return Buffer.concat(parts);
}

function answer(query: Buffer, q: Question, rcode: number, values: string[]): Buffer {
  const header = Buffer.alloc(12);
  header.writeUInt16BE(q.id, 0);
  // QR, the query's opcode and RD, AA; no recursion available.
  header.writeUInt16BE(0x8000 | (q.flags & 0x7900) | 0x0400 | rcode, 2);
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(values.length, 6);
  const question = query.subarray(12, q.end);
  const records = values.map((v) => {
    const data = txtData(v);
    const rr = Buffer.alloc(12);
    rr.writeUInt16BE(0xc00c, 0); // the name: a pointer to the question's
    rr.writeUInt16BE(TYPE_TXT, 2);
    rr.writeUInt16BE(CLASS_IN, 4);
    rr.writeUInt32BE(0, 6); // TTL 0: nothing caches a test's record
    rr.writeUInt16BE(data.length, 10);
    return Buffer.concat([rr, data]);
  });
  return Buffer.concat([header, question, ...records]);
}

export async function startDnsServer(): Promise<TestDnsServer> {
  const zone = new Map<string, string[]>();
  const key = (name: string) => name.toLowerCase().replace(/\.$/, '');
  const socket: Socket = createSocket('udp4');
  const server: TestDnsServer = {
    address: '',
    port: 0,
    mode: 'answer',
    queries: [],
    addTxt: (name, ...values) => { zone.set(key(name), [...(zone.get(key(name)) ?? []), ...values]); },
    setTxt: (name, ...values) => { zone.set(key(name), values); },
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
  socket.on('message', (msg: Buffer, peer: RemoteInfo) => {
    const q = readQuery(msg);
    if (!q) return;
    server.queries.push(key(q.name));
    if (server.mode === 'drop') return;
    const reply = server.mode === 'servfail' ? answer(msg, q, RCODE.servfail, [])
      : server.mode === 'refused' ? answer(msg, q, RCODE.refused, [])
        : !zone.has(key(q.name)) ? answer(msg, q, RCODE.nxdomain, [])
          : answer(msg, q, RCODE.noerror, q.type === TYPE_TXT ? zone.get(key(q.name))! : []);
    socket.send(reply, peer.port, peer.address);
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(0, '127.0.0.1', () => { socket.off('error', reject); resolve(); });
  });
  server.port = socket.address().port;
  server.address = `127.0.0.1:${server.port}`;
  return server;
}
