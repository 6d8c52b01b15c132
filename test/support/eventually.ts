/** Polls until the probe returns a value that passes, or fails with the last value seen. */
export async function eventually<T>(
  probe: () => Promise<T>,
  passes: (value: T) => boolean,
  options: { timeoutMs?: number; everyMs?: number } = {},
): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 20_000);
  let last: T = await probe();
  while (!passes(last)) {
    if (Date.now() > deadline)
      throw new Error(
        `Still not there after ${options.timeoutMs ?? 20_000} ms; last seen: ${JSON.stringify(last)?.slice(0, 2000)}`,
      );
    await new Promise((resolve) => setTimeout(resolve, options.everyMs ?? 100));
    last = await probe();
  }
  return last;
}
