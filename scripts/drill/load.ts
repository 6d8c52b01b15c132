/**
 * The drills' load: approvals and routings created by clients that behave as the API asks them to — on a
 * 503 or an in-flight 409 they wait Retry-After and send the same request with the same Idempotency-Key; on a
 * broken connection (the API died) they send it again the same way. Every answer is counted.
 */
import { DRILL_APPROVER, REQUEST_TIMEOUT_MS, sleep } from './stack';

export type Kind = 'approval' | 'routing';

export interface Sent {
  kind: Kind;
  key: string;
  marker: string;
  body: unknown;
  /** The id of the acknowledged resource; undefined if no 2xx ever came. */
  id?: string;
  attempts: number;
}

export interface Tally {
  sent: Sent[];
  /** Answers by status (0: no answer, the connection broke). */
  statuses: Map<number, number>;
  /** Answers that break the rules: a 5xx other than a 503 problem with Retry-After, any other unexpected status. */
  violations: string[];
  /** The longest any one answer took, in ms. */
  slowestMs: number;
  /** When each acknowledgement came (ms since the epoch): how soon the load recovered after a fault. */
  acknowledgedAt: number[];
}

const RETRY_AFTER_CAP_S = 5;
/** Slack over the request deadline for one answer on a busy two-core machine. */
export const ANSWER_SLACK_MS = 3000;

export function newTally(): Tally {
  return { sent: [], statuses: new Map(), violations: [], slowestMs: 0, acknowledgedAt: [] };
}

function bodyOf(kind: Kind, marker: string, options: { expiresInSeconds?: number }) {
  if (kind === 'approval') {
    return {
      org_did: 'did:web:drill.example',
      agent_id: 'agent://drill/payer@1.0.0',
      requester_passport_id: 'did:web:drill.example:agents:payer',
      approver_passport_id: DRILL_APPROVER,
      action_description: marker,
      request_data: { amount: 10, currency: 'EUR', marker },
      ...(options.expiresInSeconds ? { expires_in_seconds: options.expiresInSeconds } : {}),
    };
  }
  // Below 0.70: a human is needed, so the routing's workflow stays open with its escalation chain.
  return {
    request_id: marker,
    task_type: 'medical_diagnosis',
    ai_agent_id: 'urn:drill:agent:1',
    ai_confidence: 0.55,
    ai_recommendation: marker,
    required_capabilities: [{ capability_id: 'medical_diagnosis', min_weight: 0.5 }],
  };
}

export const PATHS: Record<Kind, string> = { approval: '/v1/approvals', routing: '/v1/orch/routing' };

function count(tally: Tally, status: number) {
  tally.statuses.set(status, (tally.statuses.get(status) ?? 0) + 1);
}

/** One client request, retried with its key until acknowledged or `giveUpMs` has passed. */
async function send(baseUrl: string, token: string, sent: Sent, tally: Tally, giveUpMs: number): Promise<void> {
  const deadline = Date.now() + giveUpMs;
  while (Date.now() < deadline) {
    sent.attempts += 1;
    const started = Date.now();
    let status = 0;
    let text = '';
    let retryAfter: string | null = null;
    let contentType = '';
    try {
      const response = await fetch(`${baseUrl}${PATHS[sent.kind]}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': sent.key },
        body: JSON.stringify(sent.body),
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS + 30_000),
      });
      status = response.status;
      text = await response.text();
      retryAfter = response.headers.get('retry-after');
      contentType = response.headers.get('content-type') ?? '';
    } catch {
      status = 0;
    }
    const took = Date.now() - started;
    count(tally, status);
    if (status !== 0) tally.slowestMs = Math.max(tally.slowestMs, took);
    if (status >= 200 && status < 300) {
      const id = JSON.parse(text) as { id?: string; routing_id?: string };
      sent.id = id.id ?? id.routing_id;
      tally.acknowledgedAt.push(Date.now());
      return;
    }
    if (status === 503 || status === 409) {
      const code = contentType.includes('problem+json') ? (JSON.parse(text) as { type?: string }).type : undefined;
      const allowed =
        status === 503
          ? ['/problems/service_unavailable', '/problems/storage_failed']
          : ['/problems/idempotency_request_in_flight'];
      if (!code || !allowed.includes(code) || !retryAfter)
        tally.violations.push(
          `${sent.key}: ${status} ${code ?? contentType} without the documented problem and Retry-After`,
        );
      await sleep(Math.min(Number(retryAfter ?? 1), RETRY_AFTER_CAP_S) * 1000);
      continue;
    }
    if (status === 0) {
      await sleep(500);
      continue;
    }
    tally.violations.push(`${sent.key}: unexpected ${status} ${text.slice(0, 200)}`);
    return;
  }
  tally.violations.push(`${sent.key}: no acknowledgement within ${giveUpMs / 1000} s (${sent.attempts} attempts)`);
}

/**
 * `count` creates (approvals, and routings every `routingEvery`th), `concurrency` at a time. `during` runs
 * beside the load once `faultAfter` requests have been sent: the fault.
 */
export async function drive(
  /** With baseUrls, requests go round-robin over them (API instances behind one PUBLIC_BASE_URL). */
  target: { baseUrl: string; baseUrls?: string[]; token: string },
  options: {
    drill: string;
    count: number;
    concurrency: number;
    routingEvery?: number;
    expiresInSeconds?: number;
    giveUpMs?: number;
    faultAfter?: number;
    during?: () => Promise<void>;
  },
): Promise<Tally> {
  const tally = newTally();
  let next = 0;
  let fault: Promise<void> | undefined;
  const client = async () => {
    while (next < options.count) {
      const index = next++;
      if (options.during && !fault && index >= (options.faultAfter ?? Math.floor(options.count / 3)))
        fault = options.during();
      const kind: Kind =
        options.routingEvery && index % options.routingEvery === options.routingEvery - 1 ? 'routing' : 'approval';
      const marker = `drill-${options.drill}-${process.pid}-${index}`;
      const sent: Sent = { kind, key: `${marker}-key`, marker, body: bodyOf(kind, marker, options), attempts: 0 };
      tally.sent.push(sent);
      const urls = target.baseUrls ?? [target.baseUrl];
      await send(urls[index % urls.length]!, target.token, sent, tally, options.giveUpMs ?? 180_000);
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, client));
  await fault;
  return tally;
}

export function statusLine(tally: Tally): string {
  return [...tally.statuses.entries()]
    .sort(([a], [b]) => a - b)
    .map(([status, n]) => `${status === 0 ? 'no answer' : status} ×${n}`)
    .join(', ');
}
