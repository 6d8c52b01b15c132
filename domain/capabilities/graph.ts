/**
 * Implications between capabilities (a cardiologist is a physician): each definition names what it implies
 * directly, and holding a capability counts as holding everything it implies, transitively. Cycles are
 * harmless: each capability is visited once.
 */
export type Implications = ReadonlyMap<string, readonly string[]>;

/**
 * Every capability whose holder satisfies `required`, each with the chain from it down to `required`
 * (its first element the held capability, its last `required`; [required] for the capability itself).
 */
export function satisfiersOf(required: string, implications: Implications): Map<string, string[]> {
  const impliedBy = new Map<string, string[]>();
  for (const [holder, implied] of implications)
    for (const target of implied) impliedBy.set(target, [...(impliedBy.get(target) ?? []), holder]);
  const chains = new Map<string, string[]>([[required, [required]]]);
  const queue = [required];
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    for (const holder of impliedBy.get(next) ?? []) {
      if (chains.has(holder)) continue;
      chains.set(holder, [holder, ...chains.get(next)!]);
      queue.push(holder);
    }
  }
  return chains;
}

/** Everything `held` implies, itself included: what a holder of it may be matched for. */
export function impliedBy(held: string, implications: Implications): string[] {
  const seen = new Set([held]);
  const queue = [held];
  for (let next = queue.shift(); next !== undefined; next = queue.shift())
    for (const implied of implications.get(next) ?? [])
      if (!seen.has(implied)) {
        seen.add(implied);
        queue.push(implied);
      }
  return [...seen];
}
