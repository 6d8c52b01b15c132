/** One text message to one phone number (E.164). Codes go in the body only; providers log the rest. */
export interface SmsMessage {
  to: string;
  body: string;
}

/** What the provider answered for an accepted message: its id there, and the state it reported. */
export interface SmsReceipt {
  providerMessageId: string;
  status: string;
}

/** What every part of the service sends text messages through. */
export interface SmsSender {
  /** False when no provider is configured: callers refuse the act that needs a text instead of losing it. */
  readonly configured: boolean;
  /** Resolves once the provider has accepted the message; rejects with SmsUnavailable otherwise. */
  send(message: SmsMessage): Promise<SmsReceipt>;
}

/** The provider did not take the message. `retryable` says whether sending it again later may succeed. */
export class SmsUnavailable extends Error {
  override name = 'SmsUnavailable';
  constructor(
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
  }
}

export interface SmsSettings {
  /** Base URL of a provider speaking Twilio's Messages API (https://api.twilio.com); unset: no texts are sent. */
  apiUrl?: string | undefined;
  /** The account the messages are sent as (Twilio's Account SID); the user of HTTP Basic authentication. */
  accountId?: string | undefined;
  /** The account's secret (Twilio's Auth Token); the password of HTTP Basic authentication. */
  authToken?: string | undefined;
  /** The sender: an E.164 number or a messaging service the account owns. */
  from?: string | undefined;
  /** Longest wait for the provider's answer. */
  timeoutMs: number;
}

const E164 = /^\+[1-9][0-9]{6,14}$/;

/**
 * Texts through an HTTP provider in the shape of Twilio's Messages API: POST
 * {apiUrl}/2010-04-01/Accounts/{accountId}/Messages.json, form-encoded To, From and Body, HTTP Basic
 * authentication; 201 with the message's sid and status. Errors name the provider's code, never the body.
 */
export function createSmsSender(settings: SmsSettings): SmsSender {
  const { apiUrl, accountId, authToken, from } = settings;
  if (!apiUrl || !accountId || !authToken || !from) return unconfiguredSender();
  const endpoint = new URL(`2010-04-01/Accounts/${encodeURIComponent(accountId)}/Messages.json`, withSlash(apiUrl));
  const authorization = `Basic ${Buffer.from(`${accountId}:${authToken}`).toString('base64')}`;
  return {
    configured: true,
    async send(message) {
      if (!E164.test(message.to))
        throw new SmsUnavailable('the number is not in E.164 form (+ and 7 to 15 digits)', false);
      const response = await post(
        endpoint,
        authorization,
        new URLSearchParams({ To: message.to, From: from, Body: message.body }),
        settings.timeoutMs,
      );
      const answer = (await response.json().catch(() => ({}))) as { sid?: unknown; status?: unknown; code?: unknown };
      if (response.status === 200 || response.status === 201) {
        if (typeof answer.sid !== 'string')
          throw new SmsUnavailable('the provider answered without a message id', true);
        return { providerMessageId: answer.sid, status: typeof answer.status === 'string' ? answer.status : 'queued' };
      }
      const code = typeof answer.code === 'number' || typeof answer.code === 'string' ? ` code ${answer.code}` : '';
      // 429 and 5xx pass; any other 4xx (a bad number, bad credentials) will fail the same way again.
      const retryable = response.status === 429 || response.status >= 500;
      throw new SmsUnavailable(`the provider refused the message (HTTP ${response.status}${code})`, retryable);
    },
  };
}

async function post(endpoint: URL, authorization: string, form: URLSearchParams, timeoutMs: number) {
  try {
    return await fetch(endpoint, {
      method: 'POST',
      headers: { authorization, 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: form,
      redirect: 'error',
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    const kind = (error as Error).name === 'TimeoutError' ? 'no answer in time' : 'could not connect';
    throw new SmsUnavailable(`the SMS provider was not reached (${kind})`, true);
  }
}

function withSlash(url: string): string {
  return url.endsWith('/') ? url : `${url}/`;
}

function unconfiguredSender(): SmsSender {
  return {
    configured: false,
    send: () =>
      Promise.reject(new SmsUnavailable('no SMS provider is configured, so this deployment sends no texts', false)),
  };
}
