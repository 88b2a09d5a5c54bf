// What an approve callback decided, as the call's tool step keeps it (`toolApproval`): checked by
// the step's own rule (RunStep.of), never a copy of it.
import { RunStep, RunStepError, type ToolApproval } from '@runledger/trace';

/**
 * A decision on a call, returned by {@link McpToolSetOptions.approve} in place of a plain boolean
 * to say who decided and why.
 *
 * @remarks
 * `by` (a user, a token's name) is 1 to 200 characters, `reason` 1 to 500, neither with control
 * characters; both are kept on the call's tool step as `toolApproval`.
 *
 * @public
 */
export interface McpToolApprovalDecision {
  readonly approved: boolean;
  /** Who decided; absent when no one is named. */
  readonly by?: string;
  /** Why; absent for none. */
  readonly reason?: string;
}

/** The approval as a step keeps it; throws the step's RunStepError when it breaks a rule. */
function kept(approval: ToolApproval): ToolApproval {
  return RunStep.of({ kind: 'tool', round: 0, durationMs: 0, toolOutcome: 'failed', toolApproval: approval }).toolApproval!;
}

/**
 * The `toolApproval` of what `approve` returned: a boolean names no one.
 *
 * @throws TypeError naming the field and its rule when the value is neither a boolean nor a
 * decision a step can keep.
 */
export function approvalOf(value: unknown): ToolApproval {
  if (typeof value === 'boolean') return kept({ approved: value, by: null, reason: null });
  const approved = typeof value === 'object' && value !== null ? (value as { approved?: unknown }).approved : undefined;
  if (typeof approved !== 'boolean') {
    const got =
      value === null
        ? 'null'
        : Array.isArray(value)
          ? 'an array'
          : typeof value === 'object'
            ? 'an object without a boolean approved'
            : typeof value;
    throw new TypeError(
      `McpToolSetOptions.approve must return a boolean or a McpToolApprovalDecision { approved: boolean, by?: string, reason?: string }, got ${got}; the call was not sent`,
    );
  }
  const { by, reason } = value as McpToolApprovalDecision;
  try {
    return kept({ approved, by: by ?? null, reason: reason ?? null });
  } catch (error) {
    if (!RunStepError.is(error)) throw error;
    throw new TypeError(
      `McpToolSetOptions.approve returned a decision a step cannot keep: ${error.message.replace('RunStep.toolApproval.', 'McpToolApprovalDecision.')}; the call was not sent`,
    );
  }
}

/**
 * The `toolApproval` of a call decided through the AI SDK's `tool-approval-response` (the app's
 * answer to a held call, or ai 7's `toolApproval` deciding at once): the SDK names no one (`by`
 * null); its reason when a step can keep it, else none (a refused step's text still quotes it).
 */
export function decidedThroughPrompt(approved: boolean, reason: string | undefined): ToolApproval {
  try {
    return kept({ approved, by: null, reason: reason ?? null });
  } catch {
    return kept({ approved, by: null, reason: null });
  }
}

/** The `toolApproval` of a call the SDK ran once approved, where no approval response says why. */
export const APPROVED_THROUGH_PROMPT: ToolApproval = decidedThroughPrompt(true, undefined);

/** The parts of the AI SDK's messages (ai 6 and 7 alike) that say how a held call was answered. */
interface ApprovalPart {
  readonly type?: unknown;
  readonly toolCallId?: unknown;
  readonly approvalId?: unknown;
  readonly approved?: unknown;
  readonly reason?: unknown;
}

/** A message as this module reads it: its role and its parts. */
interface MessageParts {
  readonly role?: unknown;
  readonly content?: unknown;
}

/**
 * How the app answered the call `toolCallId` through the messages a tool's `execute` is given: the
 * `tool-approval-response` to that call's `tool-approval-request`, or undefined when the messages
 * hold none (a call that needed no approval, or one ai 7's `toolApproval` decided within the step).
 *
 * @remarks
 * Read where the AI SDK itself reads the answers it acts on (`collectToolApprovals`, ai 6 and 7): in
 * the last message, a tool message. A call without an answer there costs a look at that one
 * message, not a walk through the conversation; only an answered step looks back for the requests.
 */
export function answeredApproval(messages: unknown, toolCallId: string): ToolApproval | undefined {
  if (!Array.isArray(messages)) return undefined;
  const list = messages as readonly MessageParts[];
  const last = list.at(-1);
  if (last?.role !== 'tool' || !Array.isArray(last.content)) return undefined;
  const answers = (last.content as readonly ApprovalPart[]).filter(
    (part) => part?.type === 'tool-approval-response' && typeof part.approved === 'boolean',
  );
  if (answers.length === 0) return undefined;
  for (let index = list.length - 2; index >= 0; index--) {
    const message = list[index];
    if (message?.role !== 'assistant' || !Array.isArray(message.content)) continue;
    for (const part of message.content as readonly ApprovalPart[]) {
      if (part?.type !== 'tool-approval-request' || part.toolCallId !== toolCallId) continue;
      const answer = answers.find((a) => a.approvalId === part.approvalId);
      return answer === undefined
        ? undefined
        : decidedThroughPrompt(answer.approved as boolean, typeof answer.reason === 'string' ? answer.reason : undefined);
    }
  }
  return undefined;
}
