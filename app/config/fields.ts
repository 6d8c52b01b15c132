import { z } from 'zod';

export const booleanFromEnv = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((value) => value === 'true' || value === '1' || value === 'yes');

export const commaList = z.string().transform((value) =>
  value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item.length > 0),
);

/** 32 bytes, base64 or base64url. */
const isSecretKey = (value: string) => Buffer.from(value.trim(), 'base64').length === 32;
export const secretKey = z
  .string()
  .refine(isSecretKey, 'must be 32 bytes, base64-encoded (e.g. `openssl rand -base64 32`)');

/** Seconds, e.g. "900"; every escalation-level timeout is configurable. */
export const seconds = z.coerce.number().int().positive();

/** A setting written as JSON text (`what` it must be, e.g. "a JSON object"), parsed, then checked by `shape`. */
export function jsonSetting<T extends z.ZodType>(defaultText: string, what: string, shape: T) {
  return z
    .string()
    .default(defaultText)
    .transform((text, ctx) => {
      try {
        return JSON.parse(text) as unknown;
      } catch {
        ctx.addIssue({ code: 'custom', message: `must be ${what}` });
        return z.NEVER;
      }
    })
    .pipe(shape);
}
