import { z } from 'zod';
import {
  authSettings,
  outboundSettings,
  passkeySettings,
  passportSettings,
  requestLimitSettings,
  secretSettings,
} from './config/access';
import {
  connectorSettings,
  escalationSettings,
  ledgerSettings,
  orchestrationSettings,
  platformSettings,
  webhookSettings,
} from './config/orchestration';
import { notificationSettings } from './config/notifications';
import { reasoningSettings } from './config/reasoning';
import { recoverySettings } from './config/recovery';
import {
  apiVersionSettings,
  databaseSettings,
  mailSettings,
  observabilitySettings,
  serverSettings,
  smsSettings,
  temporalSettings,
} from './config/runtime';

/**
 * Every setting the service reads, with its default, by area (app/config/). Parsed once at boot by an
 * entry point and passed down; nothing below the entry points reads process.env.
 */
export const configSchema = z.object({
  ...serverSettings,
  ...observabilitySettings,
  ...mailSettings,
  ...smsSettings,
  ...notificationSettings,
  ...databaseSettings,
  ...temporalSettings,
  ...authSettings,
  ...requestLimitSettings,
  ...outboundSettings,
  ...secretSettings,
  ...passportSettings,
  ...webhookSettings,
  ...escalationSettings,
  ...ledgerSettings,
  ...passkeySettings,
  ...platformSettings,
  ...connectorSettings,
  ...orchestrationSettings,
  ...reasoningSettings,
  ...recoverySettings,
  ...apiVersionSettings,
});

export type Config = z.infer<typeof configSchema>;

export class ConfigError extends Error {
  override name = 'ConfigError';
}

export function loadConfig(env: Record<string, string | undefined>): Config {
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''));
  const parsed = configSchema.safeParse(present);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  return parsed.data;
}

export function publicBaseUrl(config: Config): string {
  return config.PUBLIC_BASE_URL ?? `http://${config.HOST}:${config.PORT}`;
}

export function ledgerOrigin(config: Config): string {
  return config.LEDGER_ORIGIN ?? `${new URL(publicBaseUrl(config)).host}/ledger`;
}

export function tokenIssuer(config: Config): string {
  return config.AUTH_ISSUER ?? publicBaseUrl(config);
}

/** WebAuthn's relying party: the RP id and the origins ceremonies may run on, from PUBLIC_BASE_URL unless set. */
export function webauthnRelyingParty(config: Config): { rpId: string; origins: string[] } {
  const base = new URL(publicBaseUrl(config));
  return { rpId: config.WEBAUTHN_RP_ID ?? base.hostname, origins: config.WEBAUTHN_ORIGINS ?? [base.origin] };
}
