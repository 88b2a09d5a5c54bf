/**
 * The last `keep` items added, in the order they were added: a ring buffer once it is full, so
 * adding is O(1) and the memory held is O(keep), however many items pass through. With `keep`
 * Infinity it holds every item (a plain growing array).
 *
 * @remarks
 * `view()` returns a frozen array of what is held, oldest first, built once per change (O(held))
 * and shared by the reads until the next `add`.
 *
 * @internal
 */
export class StepWindow<T> {
  readonly #keep: number;
  readonly #items: T[] = [];
  /** Where the oldest held item is, once the ring is full (the next `add` overwrites it). */
  #oldest = 0;
  #total = 0;
  #view: readonly T[] | null = null;

  /** `keep` must have passed {@link checkKeepSteps}. */
  constructor(keep: number) {
    this.#keep = keep;
  }

  /** Every item ever added, held or not. */
  get total(): number {
    return this.#total;
  }

  add(item: T): void {
    this.#total++;
    if (this.#keep === 0) return;
    this.#view = null;
    if (this.#items.length < this.#keep) {
      this.#items.push(item);
      return;
    }
    this.#items[this.#oldest] = item;
    this.#oldest = this.#oldest + 1 === this.#keep ? 0 : this.#oldest + 1;
  }

  /** What is held, oldest first (frozen). */
  view(): readonly T[] {
    if (this.#view !== null) return this.#view;
    const items = this.#items;
    const oldest = this.#oldest;
    this.#view = Object.freeze(oldest === 0 ? items.slice() : items.slice(oldest).concat(items.slice(0, oldest)));
    return this.#view;
  }
}

/**
 * Checks a `keepSteps` option: a non-negative integer, or Infinity for every step.
 *
 * @throws TypeError when it is not a number; RangeError when it is a number out of that rule.
 * @internal
 */
export function checkKeepSteps(value: unknown, field: string): number {
  if (typeof value !== 'number') {
    throw new TypeError(`${field} must be a non-negative integer or Infinity (every step), got ${describe(value)}`);
  }
  if (value !== Infinity && !(Number.isSafeInteger(value) && value >= 0)) {
    throw new RangeError(`${field} must be a non-negative integer or Infinity (every step), got ${String(value)}`);
  }
  return value;
}

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (value === null || value === undefined || typeof value === 'boolean') return String(value);
  if (typeof value === 'bigint') return `${value}n`;
  return `a ${typeof value}`;
}
