/**
 * Advisory locks (one bigint key each). Appends hold the append lock shared, so they never wait for one
 * another; closing a block takes it alone, which waits for appends in flight to commit and so makes the
 * block number an append read final. Sealing holds its own lock so two sealers never interleave, and
 * key creation its own so that processes starting together make one key.
 */
export const LEDGER_LOCKS = { append: 0x4c4544470001, seal: 0x4c4544470002, key: 0x4c4544470003 } as const;
