/** A did:web host: the port's colon percent-encoded, as did:web requires. */
export function didWebHost(baseUrl: string): string {
  return new URL(baseUrl).host.replace(':', '%3A');
}

/** The did:web of a person's Passport, served under /passports/{id} of this deployment. */
export function passportDid(didHost: string, passportId: string): string {
  return `did:web:${didHost}:passports:${passportId}`;
}
