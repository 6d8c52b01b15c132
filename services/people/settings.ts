import type { Knex } from 'knex';
import type { Logger } from '../../lib/logger';
import type { Mailer } from '../../lib/mail/transport';
import type { WebAuthnDeps } from '../identity/passkeys/ceremony';
import type { PassportSettings } from '../identity/passports/settings';

/** What the people services read from the configuration. */
export interface PeopleSettings {
  /** How long an employee's linking code (and the onboarding e-mail's enrollment link) may be used. */
  linkingCodeTtlSeconds: number;
}

export interface PeopleDeps {
  db: Knex;
  mailer: Mailer;
  logger: Logger;
  /** The passkey ceremony, for the onboarding e-mail's enrollment link. */
  webauthn: WebAuthnDeps;
  settings: { passports: PassportSettings; people: PeopleSettings };
}
