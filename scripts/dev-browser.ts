import { publicBaseUrl, type Config } from '../app/config';
import { linkUnclaimedReviewer } from '../db/reviewers';
import type { WebAuthnDeps } from '../services/identity/passkeys/ceremony';
import { enrollmentPageUrl, startEnrollment } from '../services/identity/passkeys/registration';

/** Host names a browser on this machine reaches as localhost. */
const LOOPBACK_HOSTS = new Set(['127.0.0.1', '::1', 'localhost', '0.0.0.0', '::']);

/** The longest a challenge may live (WEBAUTHN_CHALLENGE_TTL_SECONDS' maximum): the first link is read off a terminal. */
const FIRST_ENROLLMENT_TTL_SECONDS = 3600;

/**
 * `npm start`'s passkey defaults. A browser refuses an IP address as a relying-party id, so when the API is
 * reached on a loopback address and nothing names the relying party, passkeys are bound to localhost and
 * their ceremonies run on http://localhost:PORT (a secure context). PUBLIC_BASE_URL itself is left alone:
 * token issuers and ledger origins already made from it keep working.
 */
export function withBrowserPasskeys(config: Config): Config {
  if (config.PUBLIC_BASE_URL || config.WEBAUTHN_RP_ID || config.WEBAUTHN_ORIGINS) return config;
  if (!LOOPBACK_HOSTS.has(config.HOST)) return config;
  return { ...config, WEBAUTHN_RP_ID: 'localhost', WEBAUTHN_ORIGINS: [`http://localhost:${String(config.PORT)}`] };
}

/** Where a browser opens the service: the first origin passkey ceremonies run on, else PUBLIC_BASE_URL. */
export function browserBaseUrl(config: Config): string {
  return config.WEBAUTHN_ORIGINS?.[0] ?? publicBaseUrl(config);
}

export type FirstEnrollment =
  { state: 'link'; url: string; expires_at: Date; passport_id: string } | { state: 'enrolled'; passport_id: string };

/**
 * A person's first enrollment link, made as an administrator's enrollment is (POST /v1/webauthn/registration/options),
 * valid for an hour; or, once they are enrolled, their Passport. With reviewer_did, the person is that reviewer:
 * the Passport the link mints (or the one enrolled before) is linked to it, so the routings escalated to the
 * reviewer are in the person's inbox.
 */
export async function firstEnrollment(
  deps: WebAuthnDeps,
  organizationId: string,
  person: { user_name: string; display_name: string; reviewer_did?: string | undefined },
): Promise<FirstEnrollment> {
  const longer = {
    ...deps,
    settings: {
      ...deps.settings,
      webauthn: { ...deps.settings.webauthn, challengeTtlSeconds: FIRST_ENROLLMENT_TTL_SECONDS },
    },
  };
  let outcome = await startEnrollment(longer, organizationId, person);
  // A seeded reviewer someone else signs in as already: the link enrolls the person without it.
  if (!outcome.ok && outcome.code !== 'user_enrolled')
    outcome = await startEnrollment(longer, organizationId, { ...person, reviewer_did: undefined });
  if (!outcome.ok && outcome.code === 'user_enrolled') {
    if (person.reviewer_did)
      await linkUnclaimedReviewer(deps.db, organizationId, person.reviewer_did, outcome.passport_id);
    return { state: 'enrolled', passport_id: outcome.passport_id };
  }
  if (!outcome.ok) throw new Error(outcome.detail);
  const url = enrollmentPageUrl(deps.settings.webauthn.origins[0]!, outcome.options);
  return { state: 'link', url, expires_at: outcome.expires_at, passport_id: outcome.passport_id };
}
