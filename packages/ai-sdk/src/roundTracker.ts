import type { McpTool } from '@runledger/mcp';
import type { RunTrace } from '@runledger/trace';
import type { UnsentCall } from './unsentToolCalls.js';

/**
 * The rounds of one run, shared by the model middleware and the tool set of that run: round 0 is
 * the run's request, each LLM call opens the next round (from 1), and a tool call belongs to the
 * round of the LLM call that asked for it.
 */
export interface RoundTracker {
  /** Opens the round of a new LLM call and returns it. */
  nextLlmRound(): number;
  /** Notes that the LLM call of `round` asked for the tool call `toolCallId`. */
  requested(toolCallId: string, round: number): void;
  /** The round of a tool call: its LLM call's, else the latest round (0 before any LLM call). */
  roundOf(toolCallId: string): number;
  /**
   * The id to record a tool call under: the model's own call id, so the step links to the LLM
   * step that asked for it, unless this run already recorded a call under that id (a scripted
   * model repeating ids across generate calls): then a fresh UUID.
   */
  recordedCallId(toolCallId: string): string;
  /** Notes a tool of this run's `mcpToolSet`, so the middleware knows the calls it owns. */
  offer(tool: McpTool): void;
  /** The tool of that name among the offered ones, if any. */
  offered(toolName: string): McpTool | undefined;
  /**
   * Notes a call whose input the AI SDK has, before it decides whether the call runs: ai 7's
   * `toolApproval` may deny any call, and a tool that needs approval is held for a
   * `tool-approval-response`.
   */
  awaitDecision(toolCallId: string, call: AwaitingCall): void;
  /** The call awaiting a decision under that id, which no longer awaits one afterwards. */
  takeAwaiting(toolCallId: string): AwaitingCall | undefined;
  /** True once a `recordingToolCallRepair` of this run exists: the calls the SDK refuses wait for it. */
  repairs: boolean;
  /** Leaves the refusal of a call (undefined: the SDK takes the call) to the run's repair. */
  deferRefusal(toolCallId: string, refusal: Promise<UnsentCall | undefined>): void;
  /** The refusal left to the repair under that id, which is no longer left afterwards. */
  takeRefusal(toolCallId: string): Promise<UnsentCall | undefined> | undefined;
}

/** A call of an offered tool whose input the AI SDK has, not run or refused yet. */
export interface AwaitingCall {
  readonly tool: McpTool;
  readonly input: unknown;
  /** True when the tool carries the AI SDK's `needsApproval`: the SDK runs the call only once it is approved. */
  readonly needsApproval: boolean;
}

const TRACKERS = new WeakMap<RunTrace, RoundTracker>();
/** The most tool call ids kept per run; older ones fall back to the latest round. */
const KEPT_CALL_IDS = 1024;

/** The round tracker of a run's trace, made on first use. */
export function roundTrackerOf(trace: RunTrace): RoundTracker {
  let tracker = TRACKERS.get(trace);
  if (tracker === undefined) {
    tracker = newRoundTracker();
    TRACKERS.set(trace, tracker);
  }
  return tracker;
}

function newRoundTracker(): RoundTracker {
  let calls = 0;
  const rounds = new Map<string, number>();
  const recorded = new Set<string>();
  const tools = new Map<string, McpTool>();
  const awaiting = new Map<string, AwaitingCall>();
  const refusals = new Map<string, Promise<UnsentCall | undefined>>();
  return {
    repairs: false,
    nextLlmRound() {
      calls += 1;
      return calls;
    },
    requested(toolCallId, round) {
      rounds.delete(toolCallId);
      rounds.set(toolCallId, round);
      // bounded: a long run does not keep every call id it ever saw
      if (rounds.size > KEPT_CALL_IDS) rounds.delete(rounds.keys().next().value as string);
    },
    roundOf(toolCallId) {
      return rounds.get(toolCallId) ?? calls;
    },
    recordedCallId(toolCallId) {
      if (toolCallId === '' || recorded.has(toolCallId)) return crypto.randomUUID();
      recorded.add(toolCallId);
      // bounded like the rounds
      if (recorded.size > KEPT_CALL_IDS) recorded.delete(recorded.values().next().value as string);
      return toolCallId;
    },
    offer(tool) {
      tools.set(tool.name, tool);
    },
    offered(toolName) {
      return tools.get(toolName);
    },
    awaitDecision(toolCallId, call) {
      awaiting.set(toolCallId, call);
      // bounded like the rounds: a call never run nor refused is forgotten after this many others
      if (awaiting.size > KEPT_CALL_IDS) awaiting.delete(awaiting.keys().next().value as string);
    },
    takeAwaiting(toolCallId) {
      const call = awaiting.get(toolCallId);
      awaiting.delete(toolCallId);
      return call;
    },
    deferRefusal(toolCallId, refusal) {
      refusals.set(toolCallId, refusal);
      // a call the SDK takes is never repaired: forgotten once that is known
      void refusal.then((unsent) => {
        if (unsent === undefined && refusals.get(toolCallId) === refusal) refusals.delete(toolCallId);
      });
      // bounded like the rounds
      if (refusals.size > KEPT_CALL_IDS) refusals.delete(refusals.keys().next().value as string);
    },
    takeRefusal(toolCallId) {
      const refusal = refusals.get(toolCallId);
      refusals.delete(toolCallId);
      return refusal;
    },
  };
}
