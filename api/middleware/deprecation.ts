import type { RequestHandler } from 'express';

export interface Deprecation {
  /** Path prefix of the deprecated version, e.g. /v1. */
  prefix: string;
  /** When it stops being served (RFC 8594 Sunset). */
  sunset: string;
  /** When it was deprecated (RFC 9745 Deprecation); absent: not announced. */
  deprecated_at?: string | undefined;
  /** The migration guide. */
  link?: string | undefined;
}

const under = (path: string, prefix: string) =>
  path === prefix || path.startsWith(prefix.endsWith('/') ? prefix : `${prefix}/`);

/**
 * Marks responses under a deprecated version's prefix: `Deprecation: @<unix seconds>` (RFC 9745),
 * `Sunset: <HTTP-date>` (RFC 8594) and a Link to the migration guide with rel deprecation and sunset.
 */
export function deprecationHeaders(deprecations: readonly Deprecation[]): RequestHandler {
  return (req, res, next) => {
    const deprecation = deprecations.find((d) => under(req.path, d.prefix));
    if (deprecation) {
      res.set('Sunset', new Date(deprecation.sunset).toUTCString());
      if (deprecation.deprecated_at)
        res.set('Deprecation', `@${Math.floor(Date.parse(deprecation.deprecated_at) / 1000)}`);
      if (deprecation.link)
        res.set(
          'Link',
          `<${deprecation.link}>; rel="deprecation"; type="text/html", <${deprecation.link}>; rel="sunset"; type="text/html"`,
        );
    }
    next();
  };
}
