/** What the peer's server checks in every request's JWT, and the bench's client puts there. */
export const PEER_ISSUER = 'bench-langgraph-client';
export const PEER_AUDIENCE = 'bench-langgraph-peer';
