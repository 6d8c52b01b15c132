import type { Knex } from 'knex';
import { listConsents } from '../../db/consents';
import { mayReadConsentLog, recordConsent } from '../../services/people/consents';
import { Problem } from '../problem';
import type { ApiBuilder } from '../route';
import { routeGroup } from '../route-group';
import {
  CONSENT_SORTABLE,
  ConsentSchema,
  consentView,
  ListConsentsQuerySchema,
  RecordConsentSchema,
} from '../schemas/consents';
import { PassportIdParamsSchema } from '../schemas/passports';

/** A person's consent log: appended by the person, read by them (or an administrator's token). */
export function registerConsentRoutes(api: ApiBuilder, deps: { db: Knex }): void {
  const consents = routeGroup(api, { tags: ['Passports'], auth: 'platform:read', rateLimit: 'default' });
  consents.route({
    method: 'post',
    path: '/v1/passports/{passport_id}/consents',
    operationId: 'recordConsent',
    summary: 'Record a consent in the Passport’s consent log',
    description:
      'The person’s own act, signed in or with a delegation token they hold (not an agent’s): a caller that is no person is 403 ' +
      'person_required, another person 403 actor_mismatch, another organization’s Passport 404. Append-only: each consent is a ledger ' +
      'record (transactionId) and a passport.consent_recorded event; nothing changes or removes it.',
    auth: 'platform:write',
    request: { params: PassportIdParamsSchema, body: RecordConsentSchema },
    responses: {
      201: { description: 'The consent as recorded', schema: ConsentSchema },
      403: { description: 'person_required or actor_mismatch' },
      404: { description: 'passport_not_found' },
    },
    handler: async ({ params, body, principal }) => {
      const outcome = await recordConsent(deps.db, principal, params.passport_id, {
        ...body,
        consentTimestamp: new Date(body.consentTimestamp),
      });
      if (!outcome.ok) throw new Problem(outcome.code, outcome.detail);
      return { status: 201, body: consentView(outcome.consent) };
    },
  });

  consents.list({
    path: '/v1/passports/{passport_id}/consents',
    operationId: 'listConsents',
    summary: 'The Passport’s consent log',
    description:
      'Oldest first. A person reads their own; a token that is no person (an administrator’s) any of its organization’s; another ' +
      'person’s log answers 404.',
    params: PassportIdParamsSchema,
    query: ListConsentsQuerySchema,
    page: { description: 'A page of consents', item: ConsentSchema, name: 'ConsentPage' },
    responses: { 404: { description: 'passport_not_found' } },
    parent: {
      find: ({ params, principal }) => mayReadConsentLog(deps.db, principal, params.passport_id),
      missing: 'passport_not_found',
    },
    sort: { allowed: CONSENT_SORTABLE, fallback: 'recorded_at', uniqueKey: 'consent_id' },
    list: ({ params, page }) => listConsents(deps.db, params.passport_id, page),
    view: consentView,
  });
}
