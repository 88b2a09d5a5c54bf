// When a server counts as flaky: the threshold, its default and the rule each of its values keeps.
// The one place these are spelled: the store input checks (checkHealthQuery) apply the rules,
// healthOf applies the threshold.

/**
 * When a server counts as flaky: a failure rate of at least `failureRate` over at least
 * `minAnsweredCalls` counted calls (ok, or failed and charged to the server: see `ServerHealth.notCharged`). Below that
 * many, a server is neither flaky nor healthy: it has too few calls. Defaults: 0.2 and 5.
 *
 * @public
 */
export interface FlakyThreshold {
  readonly failureRate?: number;
  readonly minAnsweredCalls?: number;
}

/**
 * The default flaky threshold: a failure rate of at least 20% over at least 5 answered calls.
 *
 * @public
 */
export const DEFAULT_FLAKY_THRESHOLD: Required<FlakyThreshold> = Object.freeze({ failureRate: 0.2, minAnsweredCalls: 5 });

/** The rule each value of a {@link FlakyThreshold} keeps: a test, and the rule in words as messages give it. */
export const FLAKY_THRESHOLD_RULES: {
  readonly [K in keyof FlakyThreshold]-?: { readonly holds: (value: unknown) => boolean; readonly rule: string };
} = Object.freeze({
  failureRate: {
    holds: (value: unknown) => typeof value === 'number' && value >= 0 && value <= 1,
    rule: 'a number from 0 to 1',
  },
  minAnsweredCalls: {
    holds: (value: unknown) => Number.isSafeInteger(value) && (value as number) >= 1,
    rule: 'a positive integer',
  },
});
