import http from 'node:http';

// Requests whose connection comes from one local address (node:http's
// localAddress): the loopback range 127.0.0.0/8 gives a test as many distinct
// callers as it needs, for the limits that count per caller address.

export interface AddressedAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The body parsed as JSON (a JSON content type); otherwise its text; null when empty. */
  body: any;
}

export function requestFrom(
  localAddress: string, url: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<AddressedAnswer> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: init.method ?? 'GET', headers: init.headers, localAddress, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => { text += chunk; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text ? (/json/.test(res.headers['content-type'] ?? '') ? JSON.parse(text) : text) : null }));
    });
    req.on('error', reject);
    req.end(init.body);
  });
}

/** A JSON POST from one local address. */
export const postJsonFrom = (localAddress: string, url: string, body: unknown) =>
  requestFrom(localAddress, url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
