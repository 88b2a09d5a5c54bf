/**
 * A deterministic generator of numbers in [0, 1) (mulberry32): the same seed gives the same
 * numbers on every machine.
 *
 * @remarks
 * Not for anything secret. runledger's tests use it so a failing case can be replayed from its
 * seed, the CLI's demo so every demo plans the same history.
 *
 * @internal
 */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
