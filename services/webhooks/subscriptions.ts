import { createHash, randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { appendProvenance } from '../../db/ledger';
import {
  deleteSecrets,
  expireLiveSecrets,
  findSubscription,
  insertSecret,
  insertSubscriptionIfAbsent,
  markSubscriptionDeleted,
  updateSubscription,
  type SubscriptionRow,
} from '../../db/webhooks';
import { ALL_EVENTS } from '../../domain/webhooks/rules';
import type { WebhookSettings } from './settings';
import { newSigningSecret } from '../../lib/outbound/signature';
import { createOutboundGuard } from '../../lib/outbound/url-guard';
import { createSecretBox } from '../../lib/secret-box';
import { subscriptionChangeEntry, urlFingerprint } from './subscription-provenance';

export interface WebhookServiceDeps {
  db: Knex;
  settings: WebhookSettings;
}

/** Binds a sealed secret to its row: copied to another subscription or secret id, it does not open. */
export function secretContext(subscriptionId: string, secretId: string): string {
  return `webhook_secret:${subscriptionId}:${secretId}`;
}

/** `*` stands for every kind, so it replaces the others; otherwise each kind once, in order. */
export function normalizeEvents(events: readonly string[]): string[] {
  return events.includes(ALL_EVENTS) ? [ALL_EVENTS] : [...new Set(events)].sort();
}

const hex32 = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 32);

/** With an Idempotency-Key the id derives from the caller and the key, so a retried create finds the first. */
export function subscriptionIdFor(principalId: string, idempotencyKey: string | undefined): string {
  return `whsub_${idempotencyKey ? hex32(`${principalId}\n${idempotencyKey}`) : randomUUID().replaceAll('-', '')}`;
}

const newSecretId = () => `whsk_${randomUUID().replaceAll('-', '')}`;
const nowIso = () => new Date().toISOString();

type Refusal = { ok: false; code: 'destination_refused'; reason: string } | { ok: false; code: 'secrets_unavailable' };

async function checkDestination(settings: WebhookSettings, url: string): Promise<Refusal | undefined> {
  const check = await createOutboundGuard(settings.outboundPolicy).check(url);
  return check.ok ? undefined : { ok: false, code: 'destination_refused', reason: check.reason };
}

/** Seals a new secret for the subscription and stores it as its current one; returns it in the clear, once. */
async function addSecret(trx: Knex.Transaction, settings: WebhookSettings, subscriptionId: string): Promise<string> {
  const secret = newSigningSecret();
  const secret_id = newSecretId();
  await insertSecret(trx, {
    secret_id,
    subscription_id: subscriptionId,
    sealed: createSecretBox(settings.secretKeys).seal(secret, secretContext(subscriptionId, secret_id)),
  });
  return secret;
}

export type CreateSubscriptionOutcome =
  | { ok: true; subscription: SubscriptionRow; secret: string; replayed: false }
  /** The same create again with the same Idempotency-Key: the subscription, but its secret is not shown twice. */
  | { ok: true; subscription: SubscriptionRow; secret: null; replayed: true }
  | Refusal
  | { ok: false; code: 'idempotency_key_reused' };

export async function createSubscription(
  deps: WebhookServiceDeps,
  input: {
    principal_id: string;
    organization_id: string;
    idempotency_key?: string | undefined;
    url: string;
    events: string[];
    description?: string | undefined;
  },
): Promise<CreateSubscriptionOutcome> {
  if (!createSecretBox(deps.settings.secretKeys).canSeal) return { ok: false, code: 'secrets_unavailable' };
  const refused = await checkDestination(deps.settings, input.url);
  if (refused) return refused;
  const subscription_id = subscriptionIdFor(input.principal_id, input.idempotency_key);
  const events = normalizeEvents(input.events);
  const description = input.description ?? null;

  return deps.db.transaction(async (trx) => {
    const inserted = await insertSubscriptionIfAbsent(trx, {
      subscription_id,
      organization_id: input.organization_id,
      url: input.url,
      events,
      description,
      created_by: input.principal_id,
    });
    if (!inserted) {
      const existing = await findSubscription(trx, subscription_id, { organizationId: input.organization_id });
      const same =
        existing &&
        existing.url === input.url &&
        existing.description === description &&
        existing.events.join(',') === events.join(',');
      return same
        ? { ok: true as const, subscription: existing, secret: null, replayed: true as const }
        : { ok: false as const, code: 'idempotency_key_reused' as const };
    }
    const subscription = (await findSubscription(trx, subscription_id))!;
    const secret = await addSecret(trx, deps.settings, subscription_id);
    await appendProvenance(trx, {
      entry: subscriptionChangeEntry(subscription, {
        action: 'created',
        timestamp: nowIso(),
        requested_by: input.principal_id,
        reasoning: 'Webhook subscription created',
      }),
      organization_id: input.organization_id,
    });
    return { ok: true as const, subscription, secret, replayed: false as const };
  });
}

export interface SubscriptionChanges {
  url?: string | undefined;
  events?: string[] | undefined;
  description?: string | null | undefined;
  status?: 'enabled' | 'disabled' | undefined;
}

export type UpdateSubscriptionOutcome =
  { ok: true; subscription: SubscriptionRow } | Refusal | { ok: false; code: 'not_found' };

/**
 * Changes what a subscription receives and where. Enabling clears why it was disabled and its run of
 * failures (as after a fix on the receiver's side); disabling by hand records `manual`.
 */
export async function changeSubscription(
  deps: WebhookServiceDeps,
  organizationId: string,
  subscriptionId: string,
  principalId: string,
  changes: SubscriptionChanges,
): Promise<UpdateSubscriptionOutcome> {
  if (changes.url !== undefined) {
    const refused = await checkDestination(deps.settings, changes.url);
    if (refused) return refused;
  }
  return deps.db.transaction(async (trx) => {
    const current = await findSubscription(trx, subscriptionId, { lock: true, organizationId });
    if (!current) return { ok: false as const, code: 'not_found' as const };
    const statusChange =
      changes.status === 'enabled' && current.status !== 'enabled'
        ? { status: 'enabled' as const, disabled_reason: null, disabled_at: null, failing_since: null }
        : changes.status === 'disabled' && current.status !== 'disabled'
          ? { status: 'disabled' as const, disabled_reason: 'manual' as const, disabled_at: new Date() }
          : {};
    const subscription = await updateSubscription(trx, subscriptionId, {
      ...(changes.url !== undefined ? { url: changes.url } : {}),
      ...(changes.events !== undefined ? { events: normalizeEvents(changes.events) } : {}),
      ...(changes.description !== undefined ? { description: changes.description } : {}),
      ...statusChange,
    });
    const changed = Object.keys(changes).filter((key) => changes[key as keyof SubscriptionChanges] !== undefined);
    await appendProvenance(trx, {
      entry: subscriptionChangeEntry(subscription, {
        action: 'updated',
        timestamp: nowIso(),
        requested_by: principalId,
        input: {
          changed,
          previous: { ...urlFingerprint(current.url), events: current.events, status: current.status },
        },
        reasoning: `Webhook subscription changed: ${changed.join(', ')}`,
      }),
      organization_id: organizationId,
    });
    return { ok: true as const, subscription };
  });
}

export type RotateSecretOutcome =
  | { ok: true; subscription: SubscriptionRow; secret: string; previous_secrets_expire_at: string }
  | { ok: false; code: 'secrets_unavailable' }
  | { ok: false; code: 'not_found' };

/**
 * A new current secret; the ones before it keep signing until the overlap ends (0: at once), so a
 * receiver can switch without rejecting a single delivery. Deliveries carry one v1 per live secret.
 */
export async function rotateSecret(
  deps: WebhookServiceDeps,
  organizationId: string,
  subscriptionId: string,
  principalId: string,
  overlapSeconds: number,
): Promise<RotateSecretOutcome> {
  if (!createSecretBox(deps.settings.secretKeys).canSeal) return { ok: false, code: 'secrets_unavailable' };
  return deps.db.transaction(async (trx) => {
    const current = await findSubscription(trx, subscriptionId, { lock: true, organizationId });
    if (!current) return { ok: false as const, code: 'not_found' as const };
    const expiresAt = await expireLiveSecrets(trx, subscriptionId, overlapSeconds);
    const secret = await addSecret(trx, deps.settings, subscriptionId);
    const subscription = await updateSubscription(trx, subscriptionId, {});
    await appendProvenance(trx, {
      entry: subscriptionChangeEntry(subscription, {
        action: 'secret_rotated',
        timestamp: nowIso(),
        requested_by: principalId,
        input: { overlap_seconds: overlapSeconds, previous_secrets_expire_at: expiresAt.toISOString() },
        reasoning: `Signing secret rotated; the previous secrets sign until ${expiresAt.toISOString()}`,
      }),
      organization_id: organizationId,
    });
    return { ok: true as const, subscription, secret, previous_secrets_expire_at: expiresAt.toISOString() };
  });
}

/**
 * Deletes a subscription: no more deliveries start for it, those still retrying stop at their next
 * attempt, and its secrets are destroyed. Its deliveries' logs stay for audit.
 */
export async function deleteSubscription(
  deps: WebhookServiceDeps,
  organizationId: string,
  subscriptionId: string,
  principalId: string,
): Promise<{ ok: true } | { ok: false; code: 'not_found' }> {
  return deps.db.transaction(async (trx) => {
    const current = await findSubscription(trx, subscriptionId, { lock: true, organizationId });
    if (!current) return { ok: false as const, code: 'not_found' as const };
    const version = await markSubscriptionDeleted(trx, subscriptionId);
    await deleteSecrets(trx, subscriptionId);
    await appendProvenance(trx, {
      entry: subscriptionChangeEntry(
        { ...current, version },
        {
          action: 'deleted',
          timestamp: nowIso(),
          requested_by: principalId,
          reasoning: 'Webhook subscription deleted',
        },
      ),
      organization_id: organizationId,
    });
    return { ok: true as const };
  });
}
