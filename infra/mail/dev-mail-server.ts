// The development mail server of a local stack: maildev (from npm), an SMTP
// server that keeps every message it receives, with a web inbox and a REST
// API (`GET /api/email`, `GET /api/healthz`) on the web port. `npm start` and
// `npm test` run it like every deployable; identity's mail goes to it unless
// FLOE_SMTP_URL names another server. Never part of a production deployment.
import { mkdirSync } from 'node:fs';
import { MailDev } from 'maildev';
import { loadConfig } from '@floe/config';

const config = loadConfig();
// The stack's data folder keeps the messages (FLOE_MAIL_DIR, set by the stack scripts).
const mailDirectory = process.env.FLOE_MAIL_DIR ?? '.data/mail';
mkdirSync(mailDirectory, { recursive: true });
const server = new MailDev({
  smtp: config.ports.mailSmtp, ip: '127.0.0.1',
  web: config.ports.mailWeb, webIp: '127.0.0.1',
  mailDirectory, silent: true,
});
await server.start();
process.stdout.write(`development mail server: SMTP 127.0.0.1:${config.ports.mailSmtp}, inbox ${config.mail.inboxUrl}\n`);

const stop = async () => {
  await server.stop().catch(() => undefined);
  process.exit(0);
};
process.on('SIGTERM', () => void stop());
process.on('SIGINT', () => void stop());
