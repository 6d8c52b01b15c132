/**
 * `npm start`'s development mail: with no SMTP_URL, a loopback SMTP server catches every message the service
 * sends and a page beside it shows them, newest first, as Mailpit does. Codes and links stay out of the logs.
 */
import { createServer, type Server } from 'node:http';
import { startMailCatcher, type CaughtMail, type MailCatcher } from '../lib/mail/catcher';

export const DEV_MAIL_PORT = 8025;

export interface DevMail {
  catcher: MailCatcher;
  pageUrl: string;
  close(): Promise<void>;
}

export async function startDevMail(port = DEV_MAIL_PORT): Promise<DevMail> {
  const catcher = await startMailCatcher();
  const page = createServer((request, response) => {
    const body = request.url === '/messages.json' ? JSON.stringify(catcher.messages()) : mailPage(catcher.messages());
    response.writeHead(200, {
      'content-type': request.url === '/messages.json' ? 'application/json' : 'text/html; charset=utf-8',
      'cache-control': 'no-store',
    });
    response.end(body);
  });
  await new Promise<void>((resolve, reject) => {
    page.once('error', reject);
    page.listen(port, '127.0.0.1', resolve);
  });
  return {
    catcher,
    pageUrl: `http://127.0.0.1:${port}/`,
    close: async () => {
      await closePage(page);
      await catcher.close();
    },
  };
}

function closePage(page: Server): Promise<void> {
  return new Promise((resolve) => page.close(() => resolve()));
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);

function mailPage(messages: CaughtMail[]): string {
  const items = messages.map(
    (mail) =>
      `<article><h2>${escapeHtml(mail.subject)}</h2><p>To ${escapeHtml(mail.to.join(', '))} · ` +
      `${mail.receivedAt.toISOString()}</p><pre>${escapeHtml(mail.text)}</pre></article>`,
  );
  return [
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Handoff development mail</title>',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<style>body{font:16px system-ui;margin:1rem auto;max-width:48rem;padding:0 1rem}',
    'pre{white-space:pre-wrap;background:#f4f4f4;padding:.5rem}article{border-bottom:1px solid #ccc}</style>',
    '</head><body><h1>Development mail</h1>',
    items.length ? items.join('') : '<p>No mail yet. Reload after the service sends some.</p>',
    '</body></html>',
  ].join('');
}
