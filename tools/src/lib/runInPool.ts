/**
 * Independent jobs side by side: at most `concurrency` at once, the next started as soon as one
 * ends, in the order given (put the longest first and the last one to start is a short one). The
 * pack smoke test's type checks (typeCheckJobs.ts) and the Node 24 pass's suites (node24.ts) run
 * through it.
 */

/**
 * Runs `fn` over the items, at most `concurrency` at once (at least one), each started in the
 * items' order when a running one ends.
 * @returns the results in the items' order (a rejection of `fn` rejects the whole run)
 */
export async function runInPool<T, R>(items: readonly T[], concurrency: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, items.length)) }, worker));
  return results;
}
