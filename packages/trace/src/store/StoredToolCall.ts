// One MCP server's tool calls across runs, as a store's users see them: the query and the page of
// SearchingRunStore.listToolCalls. Its input rule and keyset cursor are in ToolCallListing.ts.
import type { ToolFailureFacts, ToolOutcome } from '@runledger/core';

/**
 * Which tool calls {@link SearchingRunStore.listToolCalls} lists: one server's, newest first.
 *
 * @public
 */
export interface ToolCallQuery {
  /** The MCP server id (the `toolServer` of the calls' steps). */
  readonly server: string;
  /** Only calls that ended in this outcome; default every outcome. */
  readonly outcome?: ToolOutcome;
  /** Only calls recorded at or after this time (ms since the epoch). */
  readonly since?: number;
  /** Only calls recorded before this time (ms since the epoch). */
  readonly until?: number;
  /** Page size; default 50, at most 200. */
  readonly limit?: number;
  /** The `nextCursor` of the previous page (keyset paging). */
  readonly cursor?: string | null;
}

/**
 * One ended tool call as a store lists it: the `tool` step that ended it.
 *
 * @public
 */
export interface StoredToolCall {
  readonly runId: string;
  /** The sequence of the step that ended the call. */
  readonly sequence: number;
  readonly server: string;
  /** The tool's name as the step recorded it (`toolName`), or null when it recorded none. */
  readonly tool: string | null;
  readonly outcome: ToolOutcome;
  /** The failure cause of a failed call as recorded, or null (not failed, or recorded before causes were). */
  readonly cause: string | null;
  /**
   * What the transport knew about why a failed call failed (the step's `toolFailureFacts`), or
   * null; a store may give the stored JSON text, which the page reads (see `toolCallPageOf`).
   */
  readonly failureFacts?: ToolFailureFacts | null;
  readonly durationMs: number;
  /** When the step was recorded (ms since the epoch). */
  readonly createdAt: number;
}

/**
 * One page of tool calls.
 *
 * @public
 */
export interface ToolCallPage {
  readonly calls: readonly StoredToolCall[];
  /** Pass as `cursor` for the next page; null on the last page. */
  readonly nextCursor: string | null;
}
