// Not Floe's code: a round-robin HTTP balancer that a stack running two
// replicas of each deployable (scripts/lib/private-stack.ts, `replicas: 2`)
// puts where a deployment's load balancer stands, in front of the public
// hosts the gateway does not route: the catalog and the ingest host.
//
// Each request goes to the next replica in turn. The request body is sent
// only once the connection is open, so a replica that refuses the connection
// (stopped, restarting) costs nothing: the request goes to the next one. The
// connection to the replica leaves from the caller's own loopback address
// (127.x.y.z), so the replica sees the caller as its peer, as it would without
// a balancer: the catalog keys its wrong-secret limits on that address, and
// tests call from addresses of their own.
import http from 'node:http';

const port = Number(process.env.FLOE_BALANCER_PORT);
const targets = (process.env.FLOE_BALANCER_TARGETS ?? '').split(',').filter(Boolean).map((t) => new URL(t));
if (!port || !targets.length) throw new Error('FLOE_BALANCER_PORT and FLOE_BALANCER_TARGETS (comma-separated URLs) are required');
const host = process.env.FLOE_LISTEN_HOST ?? '127.0.0.1';
const agent = new http.Agent({ keepAlive: true, maxSockets: 512 });
let turn = 0;

function forward(req: http.IncomingMessage, res: http.ServerResponse, index: number, triesLeft: number): void {
  const to = targets[index % targets.length];
  const peer = req.socket.remoteAddress?.replace(/^::ffff:/, '') ?? '';
  const up = http.request({
    host: to.hostname, port: to.port, method: req.method, path: req.url, headers: req.headers, agent,
    localAddress: /^127\.\d+\.\d+\.\d+$/.test(peer) ? peer : undefined,
  });
  up.on('socket', (s) => {
    if (s.connecting) s.once('connect', () => req.pipe(up));
    else req.pipe(up);
  });
  up.on('response', (r) => {
    res.writeHead(r.statusCode ?? 502, r.rawHeaders);
    r.pipe(res);
  });
  up.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'ECONNREFUSED' && triesLeft > 0 && !res.headersSent) return forward(req, res, index + 1, triesLeft - 1);
    if (res.headersSent) return void res.destroy();
    res.writeHead(502, { 'content-type': 'text/plain' }).end(`balancer: ${to.host}: ${err.message}\n`);
  });
  res.on('close', () => { if (!res.writableFinished) up.destroy(); });
}

const server = http.createServer((req, res) => {
  turn = (turn + 1) % 1_000_000;
  forward(req, res, turn, targets.length - 1);
});
server.keepAliveTimeout = 65_000;
server.listen(port, host, () => process.stdout.write(`balancer on ${host}:${port} -> ${targets.map((t) => t.host).join(', ')}\n`));
for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => { server.close(); server.closeAllConnections(); process.exit(0); });
