import net from 'node:net';

// Requests written byte for byte. supertest (superagent) and fetch normalise
// what they send: they re-encode a broken percent-escape, refuse a NUL in a
// path, repeat nothing the way a hand-written query does, and cannot send a
// header block past Node's limit. Malformed-input tests need exactly the
// bytes an attacker or a broken client would send, so this writes them to a
// socket and reads the answer back (Content-Length or chunked, until close).

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  text: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  body: any;
}

export interface RawRequest {
  method?: string;
  /** The request target exactly as sent: path and query, nothing re-encoded. */
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** The local address to connect from (a loopback address of a test's own, for the limits that count per caller address). */
  localAddress?: string;
}

/** Sends one HTTP/1.1 request to `baseUrl`'s host and port over a fresh connection, which it closes. */
export function rawRequest(baseUrl: string, r: RawRequest): Promise<RawResponse> {
  const url = new URL(baseUrl);
  const body = r.body === undefined ? undefined : Buffer.isBuffer(r.body) ? r.body : Buffer.from(r.body, 'utf8');
  const headers: Record<string, string> = { Host: url.host, Connection: 'close', ...r.headers };
  if (body !== undefined) headers['Content-Length'] = String(body.length);
  const head = `${r.method ?? 'GET'} ${r.path} HTTP/1.1\r\n${Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('')}\r\n`;
  return rawExchange(url, body ? Buffer.concat([Buffer.from(head, 'latin1'), body]) : Buffer.from(head, 'latin1'), r.localAddress);
}

/** Writes `bytes` as they are (a request line with a literal NUL, say) and reads the answer. */
export function rawExchange(url: URL, bytes: Buffer, localAddress?: string): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ port: Number(url.port), host: url.hostname, ...(localAddress ? { localAddress } : {}) });
    const chunks: Buffer[] = [];
    socket.setTimeout(10_000, () => socket.destroy(new Error('no answer within 10 s')));
    socket.on('connect', () => socket.write(bytes));
    socket.on('data', (c) => chunks.push(c));
    // A server may close while the request is still being written (a refused header block): keep what was answered.
    socket.on('error', (err) => (chunks.length ? undefined : reject(err)));
    socket.on('close', () => {
      try {
        resolve(parseResponse(Buffer.concat(chunks)));
      } catch (err) {
        reject(err);
      }
    });
  });
}

function parseResponse(raw: Buffer): RawResponse {
  const end = raw.indexOf('\r\n\r\n');
  if (end < 0) throw new Error(`no complete HTTP answer: ${JSON.stringify(raw.toString('latin1').slice(0, 200))}`);
  const [statusLine, ...lines] = raw.subarray(0, end).toString('latin1').split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1]);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const i = line.indexOf(':');
    headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
  }
  let payload = raw.subarray(end + 4);
  if (/chunked/i.test(headers['transfer-encoding'] ?? '')) payload = dechunk(payload);
  else if (headers['content-length'] !== undefined) payload = payload.subarray(0, Number(headers['content-length']));
  const text = payload.toString('utf8');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status, headers, text, body };
}

function dechunk(data: Buffer): Buffer {
  const out: Buffer[] = [];
  let pos = 0;
  for (;;) {
    const eol = data.indexOf('\r\n', pos);
    if (eol < 0) break;
    const size = parseInt(data.subarray(pos, eol).toString('latin1'), 16);
    if (!size) break;
    out.push(data.subarray(eol + 2, eol + 2 + size));
    pos = eol + 2 + size + 2;
  }
  return Buffer.concat(out);
}
