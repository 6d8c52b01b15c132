/** Where passkeys are valid and for how long their ceremonies and sessions last. */
export interface WebAuthnSettings {
  /** The relying party id: the domain passkeys are bound to (PUBLIC_BASE_URL's host name by default). */
  rpId: string;
  rpName: string;
  /** Origins a ceremony may run on: the page's scheme, host and port, exactly. */
  origins: string[];
  /** PUBLIC_BASE_URL: a person's did:web is made from it (domain/identity/did.ts passportDidWeb). */
  publicBaseUrl: string;
  challengeTtlSeconds: number;
  sessionTtlSeconds: number;
}
