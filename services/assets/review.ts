import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import type { Asset } from '../../contracts/aggregates/asset';
import type { ReviewStepResult } from '../../contracts/review-asset';
import { concludeReview, findAssetForReview, findPublisherPassport, recordReviewCheck } from '../../db/assets';
import { appendProvenance } from '../../db/ledger';
import { canonicalJson } from '../../domain/common/canonical-json';
import {
  isSemver,
  MANIFEST_MAX_BYTES,
  MANIFEST_SCHEMA,
  MANIFEST_SIGNATURE_TYP,
  scopeAllowed,
  type PublisherFacts,
  type ReviewCheck,
  type TrustTier,
} from '../../domain/marketplace/assets';
import { assetRecord } from '../../domain/marketplace/asset-steps';
import { verifyPassportSignature } from '../identity/passports/signing';
import { compileSchema, schemaErrors } from '../prompts/json-schema';

/** The digest a provenance signature signs: SHA-256 (base64url) of the manifest's canonical JSON without the signature. */
export function manifestDigest(manifest: Record<string, unknown>): string {
  const provenance = (manifest.provenance ?? {}) as Record<string, unknown>;
  const { signature: _signature, ...unsigned } = provenance;
  return createHash('sha256')
    .update(canonicalJson({ ...manifest, provenance: unsigned }))
    .digest('base64url');
}

/** The manifest's checks: its JSON Schema (ajv), its size, its version (semver), its declared scopes (the allow-list). */
export function manifestCheck(manifest: Record<string, unknown>): ReviewCheck {
  const reasons: string[] = [];
  const size = Buffer.byteLength(canonicalJson(manifest));
  if (size > MANIFEST_MAX_BYTES) reasons.push(`the manifest is ${size} bytes; at most ${MANIFEST_MAX_BYTES}`);
  const compiled = compileSchema(MANIFEST_SCHEMA);
  if (!compiled.ok) throw new Error(`The manifest schema ${compiled.message}`);
  if (!compiled.validate(manifest))
    for (const error of schemaErrors(compiled.validate, 'manifest')) reasons.push(`${error.field} ${error.message}`);
  if (typeof manifest.version === 'string' && !isSemver(manifest.version))
    reasons.push(`manifest.version ${manifest.version} is not a semantic version`);
  const scopes = (manifest.capabilities as { required_scopes?: unknown } | undefined)?.required_scopes;
  if (Array.isArray(scopes))
    for (const scope of scopes)
      if (typeof scope === 'string' && !scopeAllowed(scope))
        reasons.push(`the scope ${scope} is not one an asset may ask for`);
  return { check: 'manifest', passed: reasons.length === 0, reasons };
}

/**
 * The manifest's provenance: provenance.signature is a JWS (EdDSA, typ asset-manifest+jwt) whose iss is
 * provenance.publishedBy, signed by a key that DID's document lists (a Passport key still verifying), over
 * the manifest's digest (claim manifest_sha256).
 */
export async function provenanceCheck(
  db: Knex,
  asset: Asset,
): Promise<{ check: ReviewCheck; publisher?: PublisherFacts & { did: string } }> {
  const provenance = asset.manifest.provenance as { publishedBy?: unknown; signature?: unknown } | undefined;
  const refused = (reason: string) => ({ check: { check: 'provenance' as const, passed: false, reasons: [reason] } });
  if (typeof provenance?.publishedBy !== 'string' || typeof provenance.signature !== 'string')
    return refused('the manifest names no provenance.publishedBy and provenance.signature');
  const verified = await verifyPassportSignature(db, provenance.signature, { typ: MANIFEST_SIGNATURE_TYP });
  if (!verified.ok) return refused(`the signature does not verify against a DID document: ${verified.reason}`);
  if (verified.payload.iss !== provenance.publishedBy)
    return refused(`the signature is ${String(verified.payload.iss)}’s, not publishedBy ${provenance.publishedBy}’s`);
  if (verified.payload.manifest_sha256 !== manifestDigest(asset.manifest))
    return refused('the signature is over another manifest (manifest_sha256 differs)');
  const passport = await findPublisherPassport(db, verified.passport_id);
  if (!passport) return refused('the publisher’s Passport is gone');
  return {
    check: { check: 'provenance', passed: true, reasons: [] },
    publisher: {
      did: provenance.publishedBy,
      type: passport.type,
      identity_tier: passport.identity_tier,
      same_organization: passport.organization_id === asset.organization_id,
    },
  };
}

/** Runs one step of an asset's review and records it on the asset and in its provenance (once per step). */
export async function runReviewStep(db: Knex, assetId: string, step: ReviewCheck['check']): Promise<ReviewStepResult> {
  const asset = await findAssetForReview(db, assetId);
  if (!asset) return { check: { check: step, passed: false, reasons: ['the asset is gone'] } };
  const result = step === 'manifest' ? { check: manifestCheck(asset.manifest) } : await provenanceCheck(db, asset);
  await db.transaction(async (trx) => {
    await recordReviewCheck(trx, assetId, result.check);
    await appendProvenance(
      trx,
      assetRecord(asset, `review:${step}`, new Date().toISOString(), {
        output: { ...result.check, ...(result.publisher ? { publisher: result.publisher } : {}) },
      }),
    );
  });
  return result;
}

export interface ReviewConclusion {
  review_status: 'approved' | 'rejected';
  trust_tier: TrustTier | null;
  reasons: string[];
}

/** Records the review's conclusion once (a concluded review is left as it is), with its record and event. */
export async function recordConclusion(
  db: Knex,
  assetId: string,
  conclusion: ReviewConclusion,
  publisherDid: string | null,
): Promise<'approved' | 'rejected'> {
  const asset = await findAssetForReview(db, assetId);
  if (!asset) return 'rejected';
  return db.transaction(async (trx) => {
    const concluded = await concludeReview(trx, assetId, { ...conclusion, publisher_did: publisherDid });
    if (!concluded) return (await findAssetForReview(trx, assetId))!.review_status as 'approved' | 'rejected';
    await appendProvenance(
      trx,
      assetRecord(asset, 'review:concluded', new Date().toISOString(), {
        output: { ...conclusion, publisher_did: publisherDid },
        event: conclusion.review_status === 'approved' ? 'asset.approved' : 'asset.rejected',
      }),
    );
    return conclusion.review_status;
  });
}
