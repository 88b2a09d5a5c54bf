import { UsageError } from './UsageError.js';

/** The units of a duration flag: each letter and its length in ms. @internal */
export type DurationUnits = Readonly<Record<string, number>>;

/** A time flag as given, for its refusal: the command, the flag (`--since`) and the value. @internal */
export interface TimeFlagValue {
  readonly command: string;
  readonly flag: string;
  readonly value: string;
}

/**
 * The length in ms of a whole number of one of `units` (`90m`, `30d`), or null when the value is
 * not of that form. Any number of digits is read: a huge count gives a huge (or infinite) span,
 * which {@link reachBack} refuses by what it means rather than by its digits.
 *
 * @internal
 */
export function durationMs(value: string, units: DurationUnits): number | null {
  const match = /^(\d+)([a-z])$/.exec(value);
  const unit = match === null || !Object.hasOwn(units, match[2]!) ? undefined : units[match[2]!];
  return unit === undefined ? null : Number(match![1]) * unit;
}

/**
 * The time a time flag names (ms since the epoch), when it is not before 1970: the stores keep
 * times from 0, and a time flag reaching before it is a mistake of the command line.
 *
 * @throws UsageError from `notBefore1970` naming the command, the flag and the rule.
 * @internal
 */
export function notBefore1970(at: number, flag: TimeFlagValue): number {
  if (at >= 0) return at;
  throw new UsageError(`runledger ${flag.command}: ${flag.flag} must not reach back before 1970-01-01, got ${JSON.stringify(flag.value)}`);
}

/**
 * The time a span back from `now` reaches (`now - spanMs`), when it is not before 1970.
 *
 * @throws UsageError from `reachBack` naming the command, the flag, the rule and the furthest
 * whole number of the value's unit it accepts now.
 * @internal
 */
export function reachBack(spanMs: number, now: number, units: DurationUnits, flag: TimeFlagValue): number {
  const at = now - spanMs;
  if (at >= 0) return at;
  const unit = flag.value.slice(-1);
  throw new UsageError(
    `runledger ${flag.command}: ${flag.flag} must not reach back before 1970-01-01 (at most ${Math.floor(now / units[unit]!)}${unit} from now), got ${JSON.stringify(flag.value)}`,
  );
}
