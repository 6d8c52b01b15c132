import { createMailer, MailUnavailable } from '../../lib/mail/transport';
import { startMailCatcher, type MailCatcher } from '../../lib/mail/catcher';
import { freePort } from '../../lib/net';

describe('mail over SMTP', () => {
  let catcher: MailCatcher;
  beforeAll(async () => {
    catcher = await startMailCatcher();
  });
  afterAll(() => catcher.close());

  it('delivers a message to a real SMTP server, body and all', async () => {
    const mailer = createMailer({ smtpUrl: catcher.url, from: 'Handoff <handoff@example.test>' });
    await mailer.send({ to: 'Ada@Example.test', subject: 'Your code', text: 'The code is 123456.' });
    mailer.close();
    const mail = await catcher.next('ada@example.test');
    expect(mail).toMatchObject({ subject: 'Your code', from: 'handoff@example.test' });
    expect(mail.text).toContain('123456');
  });

  it('rejects with MailUnavailable, without the body, when the server is not there', async () => {
    const mailer = createMailer({ smtpUrl: `smtp://127.0.0.1:${await freePort()}`, from: 'h@example.test' });
    const sent = mailer.send({ to: 'bea@example.test', subject: 'Code', text: 'secret 654321' });
    await expect(sent).rejects.toBeInstanceOf(MailUnavailable);
    await expect(sent).rejects.not.toThrow(/654321/);
    mailer.close();
  });

  it('refuses to send when no SMTP_URL is configured', async () => {
    const mailer = createMailer({ from: 'h@example.test' });
    expect(mailer.configured).toBe(false);
    await expect(mailer.send({ to: 'a@example.test', subject: 's', text: 't' })).rejects.toThrow(/no SMTP_URL/);
  });
});
