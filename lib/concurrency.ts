/** Runs `run` over the items, at most `concurrency` at a time, in their order; rejects with the first failure. */
export async function forEachConcurrently<T>(
  items: readonly T[],
  concurrency: number,
  run: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const lane = async () => {
    for (let index = next++; index < items.length; index = next++) await run(items[index]!);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, lane));
}
