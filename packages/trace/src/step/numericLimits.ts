// The numeric limits of a recorded run: the largest time, duration, round and sequence anything in
// runledger keeps. The step schema checks a step against them; every store's input rules
// (store/storeValueRules.ts) check stored values against the same ones.

/** The latest time a store keeps: 8.64e15 ms after the epoch, the largest time a JS `Date` holds (year 275760). */
export const MAX_TIME_MS = 8_640_000_000_000_000;
/** The largest duration a store keeps, in ms (the span of every `Date`, about 273 790 years). */
export const MAX_DURATION_MS = MAX_TIME_MS;
/** The largest round and sequence number: PostgreSQL's `integer`. */
export const MAX_INT32 = 2_147_483_647;
