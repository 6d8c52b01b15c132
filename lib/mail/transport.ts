import nodemailer from 'nodemailer';

/** One message to one person. Codes and links go in the body only, never in the subject: subjects are logged by relays. */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html?: string;
}

/** What every part of the service sends mail through. */
export interface Mailer {
  /** False when no SMTP_URL is configured: callers refuse the act that needs mail instead of losing it. */
  readonly configured: boolean;
  /** Resolves once the SMTP server has accepted the message; rejects with MailUnavailable otherwise. */
  send(message: MailMessage): Promise<void>;
  close(): void;
}

export class MailUnavailable extends Error {
  override name = 'MailUnavailable';
}

export interface MailSettings {
  /** smtp://user:pass@host:port or smtps://…; unset means this deployment sends no mail. */
  smtpUrl?: string;
  from: string;
}

/** The SMTP transport (nodemailer): pooled connections, bounded waits, and errors that never carry the message. */
export function createMailer(settings: MailSettings): Mailer {
  if (!settings.smtpUrl) return unconfiguredMailer();
  const url = new URL(settings.smtpUrl);
  const transport = nodemailer.createTransport({
    host: url.hostname,
    port: url.port ? Number(url.port) : url.protocol === 'smtps:' ? 465 : 587,
    secure: url.protocol === 'smtps:',
    ...(url.username
      ? { auth: { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } }
      : {}),
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 20_000,
  });
  return {
    configured: true,
    async send(message) {
      try {
        await transport.sendMail({ from: settings.from, ...message });
      } catch (error) {
        // The SMTP error may quote the envelope; the body (a code, a link) is never in it, but say only the kind.
        const code = (error as { code?: string; responseCode?: number }).code ?? 'unknown';
        throw new MailUnavailable(`the SMTP server did not accept the message (${code})`);
      }
    },
    close: () => transport.close(),
  };
}

function unconfiguredMailer(): Mailer {
  return {
    configured: false,
    send: () => Promise.reject(new MailUnavailable('no SMTP_URL is configured, so this deployment sends no mail')),
    close: () => undefined,
  };
}
