import { createServer } from 'node:net';
import { createLogger, HttpError } from '@floe/http';
import { Mailer } from './mailer';

// Without an SMTP server a mail is logged (`delivery: log`); a server that
// refuses is 502 `mail_error`. (Mail through a real server: the e2e tests,
// against the stack's development mail server.)

const logger = createLogger('test', 'error');

test('no SMTP server configured: the mail is logged and the delivery is `log`', async () => {
  const lines: unknown[] = [];
  const spy = { ...logger, info: (msg: string, meta: unknown) => { lines.push([msg, meta]); return logger; } } as unknown as typeof logger;
  const mailer = new Mailer({ smtpUrl: null, from: 'Floe <no-reply@floe.localhost>', logger: spy });
  expect(mailer.delivery).toBe('log');
  expect(await mailer.send({ to: 'a@example.com', subject: 'Your code 123456', text: 'code 123456' })).toBe('log');
  expect(lines).toEqual([['mail (delivery: log)', { to: 'a@example.com', subject: 'Your code 123456', text: 'code 123456' }]]);
});

test('a server that refuses every session: 502 mail_error with a retry hint', async () => {
  const server = createServer((socket) => socket.end('554 5.3.2 no mail service here\r\n'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const port = (server.address() as { port: number }).port;
    const mailer = new Mailer({ smtpUrl: `smtp://127.0.0.1:${port}`, from: 'Floe <no-reply@floe.localhost>', logger });
    expect(mailer.delivery).toBe('email');
    const err = await mailer.send({ to: 'a@example.com', subject: 's', text: 't' }).then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(HttpError);
    expect(err).toMatchObject({ status: 502, code: 'mail_error', extras: { retry_after_seconds: 5 } });
    mailer.close();
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});
