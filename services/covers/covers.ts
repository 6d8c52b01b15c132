import type { Knex } from 'knex';
import type { Cover } from '../../contracts/aggregates/cover';
import { approvalCoversAhead, coverFromRow, COVERS_TABLE, endCover, findCover, insertCover } from '../../db/covers';
import {
  coverProblems,
  coversInForceAt,
  seatsAfterCovers,
  type CoverWindowProblem,
  type CoveredSeats,
} from '../../domain/approvals/covers';
import { resourceId } from '../../lib/ids';
import type { NotifiedCache } from '../../lib/notified-cache';
import { grants, type Principal } from '../identity/scopes';

/** The longest window one cover may have; a longer absence is a change of approver, not a cover. */
export const LONGEST_COVER_DAYS = 90;

export interface NewCover {
  /** Whose approvals are handed on; the signed-in person's own when absent. */
  covered_did?: string | undefined;
  covering_did: string;
  starts_at?: string | undefined;
  ends_at: string;
  capabilities?: string[] | undefined;
  reason?: string | undefined;
}

export type CoverRefusal =
  | { ok: false; code: 'person_required'; detail: string }
  | { ok: false; code: 'cover_not_yours'; detail: string }
  | { ok: false; code: 'validation_failed'; errors: CoverWindowProblem[] };

/**
 * Who may hand whose approvals on: a person signed in with their own credential sets their own covers (an
 * agent holding their delegation may not); an administrator (people:enroll) sets anyone's in the organization.
 */
function coveredBy(caller: Principal, named: string | undefined): { ok: true; did: string } | CoverRefusal {
  const own = caller.actor && !caller.actor.delegation ? caller.actor.did : undefined;
  const administrator = grants(caller.scopes, 'people:enroll');
  const did = named ?? own;
  if (!did)
    return { ok: false, code: 'person_required', detail: 'Name covered_did, or sign in as the person who is away' };
  if (did !== own && !administrator)
    return {
      ok: false,
      code: 'cover_not_yours',
      detail:
        'Only the person who is away, signed in with their own credential, or an administrator (people:enroll) sets their cover',
    };
  return { ok: true, did };
}

export async function createCover(
  db: Knex,
  caller: Principal,
  body: NewCover,
  idempotencyKey?: string,
): Promise<{ ok: true; cover: Cover } | CoverRefusal> {
  const covered = coveredBy(caller, body.covered_did);
  if (!covered.ok) return covered;
  const now = new Date();
  const window = { starts_at: body.starts_at ? new Date(body.starts_at) : now, ends_at: new Date(body.ends_at) };
  const errors = coverProblems(
    { covered_did: covered.did, covering_did: body.covering_did, ...window },
    now,
    LONGEST_COVER_DAYS,
  );
  if (errors.length > 0) return { ok: false, code: 'validation_failed', errors };
  const cover: Cover = {
    cover_id: resourceId('cov', caller.id, idempotencyKey),
    organization_id: caller.organization_id,
    covered_did: covered.did,
    covering_did: body.covering_did,
    starts_at: window.starts_at.toISOString(),
    ends_at: window.ends_at.toISOString(),
    ...(body.capabilities !== undefined ? { capabilities: [...new Set(body.capabilities)] } : {}),
    ...(body.reason !== undefined ? { reason: body.reason } : {}),
    created_by: caller.id,
    created_at: now.toISOString(),
  };
  return { ok: true, cover: coverFromRow(await insertCover(db, cover)) };
}

/** Ends a cover early: the person it covers for, or an administrator; another organization's is not found. */
export async function endCoverEarly(
  db: Knex,
  caller: Principal,
  coverId: string,
): Promise<{ ok: true; cover: Cover } | { ok: false; code: 'cover_not_found' } | CoverRefusal> {
  const row = await findCover(db, caller.organization_id, coverId);
  if (!row) return { ok: false, code: 'cover_not_found' };
  const allowed = coveredBy(caller, row.covered_did);
  if (!allowed.ok) return allowed;
  await endCover(db, caller.organization_id, coverId, new Date());
  const ended = await findCover(db, caller.organization_id, coverId);
  return { ok: true, cover: coverFromRow(ended ?? row) };
}

/** A request's seats with the covers in force now applied (domain/approvals/covers.ts says how). */
export async function seatsWithCovers(
  db: Knex,
  organizationId: string,
  request: {
    requester_passport_id: string;
    approver_passport_id?: string | undefined;
    approvers?: string[] | undefined;
  },
  at: Date,
  held?: NotifiedCache,
): Promise<CoveredSeats> {
  const named = request.approvers ?? (request.approver_passport_id ? [request.approver_passport_id] : []);
  if (named.length === 0) return {};
  const read = () => approvalCoversAhead(db, organizationId, named);
  // From memory while every change to the covers is heard of, as credentials are (lib/notified-cache.ts).
  const covers = held ? await held.get(COVERS_TABLE, `${organizationId} ${named.join(' ')}`, read) : await read();
  return seatsAfterCovers(request, coversInForceAt(covers, at.getTime()));
}
