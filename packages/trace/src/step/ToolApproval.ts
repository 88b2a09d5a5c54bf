// Who decided a tool call that needed approval, and how: kept on the call's tool step.
import { lineProblem, MAX_WHO_LENGTH, MAX_WHY_LENGTH } from '../text/lineRule.js';

/**
 * The decision on a tool call that needed approval, as its tool step keeps it (`RunStep.toolApproval`).
 *
 * @remarks
 * `by` names who decided (a user, a token's name): 1 to 200 characters without control characters,
 * or null when no one was named; `reason` is why, 1 to 500 characters without control characters,
 * or null. A refused call (`approved: false`) is never sent: its step is `failed`.
 *
 * @public
 */
export interface ToolApproval {
  readonly approved: boolean;
  readonly by: string | null;
  readonly reason: string | null;
}

/** The longest `ToolApproval.by`: the cancel request's `by` rule. */
export const MAX_APPROVAL_BY_LENGTH = MAX_WHO_LENGTH;
/** The longest `ToolApproval.reason`: the cancel request's `reason` rule. */
export const MAX_APPROVAL_REASON_LENGTH = MAX_WHY_LENGTH;

const isPlainObject = (value: unknown): value is Readonly<Record<string, unknown>> => {
  if (typeof value !== 'object' || value === null) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
};

/**
 * A well-formed approval as the step keeps it (frozen, unknown keys dropped, an absent `by` or
 * `reason` as null), or undefined when the value is not one (the schema then says why).
 */
export function wellFormedToolApproval(value: unknown): ToolApproval | undefined {
  if (!isPlainObject(value)) return undefined;
  const { approved, by, reason } = value;
  if (typeof approved !== 'boolean') return undefined;
  if (lineProblem(by, MAX_APPROVAL_BY_LENGTH) !== undefined || lineProblem(reason, MAX_APPROVAL_REASON_LENGTH) !== undefined) {
    return undefined;
  }
  return Object.freeze({ approved, by: (by as string | null | undefined) ?? null, reason: (reason as string | null | undefined) ?? null });
}
