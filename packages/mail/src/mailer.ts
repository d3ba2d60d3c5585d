import nodemailer, { type Transporter } from 'nodemailer';
import { HttpError, type Logger } from '@floe/http';
import { htmlBody } from './html-body';

// Outgoing mail, through nodemailer over SMTP to the server the deployment
// names (the development mail server on a local stack). With no server
// configured, a mail is written to the log instead (`delivery: log`, the
// spec's development mode). A server that refuses is 502 `mail_error`; the
// callers send before they keep anything, so a refusal changes nothing.

export type Delivery = 'email' | 'log';

export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
}

export class Mailer {
  private readonly transport: Transporter | null;

  constructor(private readonly o: { smtpUrl: string | null; from: string; logger: Logger }) {
    this.transport = o.smtpUrl ? nodemailer.createTransport(o.smtpUrl) : null;
  }

  /** How mail leaves this deployment. */
  get delivery(): Delivery {
    return this.transport ? 'email' : 'log';
  }

  async send(m: OutgoingMail): Promise<Delivery> {
    if (!this.transport) {
      this.o.logger.info('mail (delivery: log)', { to: m.to, subject: m.subject, text: m.text });
      return 'log';
    }
    try {
      await this.transport.sendMail({ from: this.o.from, to: m.to, subject: m.subject, text: m.text, html: htmlBody(m.text) });
    } catch (err) {
      this.o.logger.warn('the mail server refused a message', { to: m.to, subject: m.subject, err: (err as Error).message });
      throw new HttpError(502, 'mail_error', 'the mail server did not take the message; nothing was changed, retry shortly', { retry_after_seconds: 5 }, { 'Retry-After': '5' });
    }
    return 'email';
  }

  close(): void {
    this.transport?.close();
  }
}
