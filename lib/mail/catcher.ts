import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import type { AddressInfo } from 'node:net';

/** A message as an SMTP server received it, parsed. */
export interface CaughtMail {
  to: string[];
  from: string;
  subject: string;
  text: string;
  html?: string;
  receivedAt: Date;
}

export interface MailCatcher {
  /** smtp://127.0.0.1:<port>, for SMTP_URL. */
  readonly url: string;
  /** Newest first. */
  messages(): CaughtMail[];
  /** Resolves with the first message (already caught or still to come) to this address that matches. */
  next(to: string, match?: (mail: CaughtMail) => boolean, timeoutMs?: number): Promise<CaughtMail>;
  close(): Promise<void>;
}

/**
 * A real SMTP server on loopback that keeps what it receives in memory: `npm start`'s development mail
 * (read on its own page, as Mailpit does) and the tests' mail server. Never part of a deployment.
 */
export async function startMailCatcher(options: { port?: number; keep?: number } = {}): Promise<MailCatcher> {
  const keep = options.keep ?? 200;
  const caught: CaughtMail[] = [];
  const waiters = new Set<(mail: CaughtMail) => void>();
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      simpleParser(stream)
        .then((parsed) => {
          const mail: CaughtMail = {
            to: session.envelope.rcptTo.map((recipient) => recipient.address.toLowerCase()),
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            subject: parsed.subject ?? '',
            text: parsed.text ?? '',
            html: typeof parsed.html === 'string' ? parsed.html : undefined,
            receivedAt: new Date(),
          };
          caught.unshift(mail);
          caught.splice(keep);
          for (const waiter of [...waiters]) waiter(mail);
          callback();
        })
        .catch((error: unknown) => callback(error instanceof Error ? error : new Error(String(error))));
    },
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    messages: () => [...caught],
    next(to, match = () => true, timeoutMs = 10_000) {
      const address = to.toLowerCase();
      const fits = (mail: CaughtMail) => mail.to.includes(address) && match(mail);
      const already = caught.find(fits);
      if (already) return Promise.resolve(already);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          reject(new Error(`no mail to ${to} within ${timeoutMs} ms`));
        }, timeoutMs);
        const waiter = (mail: CaughtMail) => {
          if (!fits(mail)) return;
          clearTimeout(timer);
          waiters.delete(waiter);
          resolve(mail);
        };
        waiters.add(waiter);
      });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
