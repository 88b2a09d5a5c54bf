import { McpTransportException, ToolResult } from '@runledger/core';
import type { McpHealthContact } from './McpHealthContact.js';
import type { McpSession } from './McpSession.js';
import type { McpExecuteOptions, McpTool } from './McpTool.js';
import { type McpConnection, newAbortReason, toTransportException, type WireTool } from './sdk.js';
import { toolResultFromAnswer } from './toolResultFromAnswer.js';
import { untilAborted } from './untilAborted.js';

const bound = (result: ToolResult): ToolResult => result.withBoundedChannels();

/** What a wait for the connection rejects with when the call's deadline ran out first. */
const DEADLINE_EXHAUSTED: unique symbol = Symbol('deadline exhausted');

/**
 * The McpTool the registry makes: one remote tool behind the server's shared session.
 *
 * @internal
 */
export class RemoteMcpTool implements McpTool {
  readonly name: string;
  readonly server: string;
  readonly remoteName: string;
  readonly title: string | undefined;
  readonly description: string;
  readonly inputSchema: Readonly<Record<string, unknown>>;
  readonly requiresApproval: boolean;
  readonly deadlineMs: number;
  readonly #session: McpSession;
  readonly #onContact: ((contact: McpHealthContact) => void) | undefined;

  constructor(init: {
    readonly name: string;
    readonly wire: WireTool;
    readonly session: McpSession;
    readonly onContact: ((contact: McpHealthContact) => void) | undefined;
  }) {
    const config = init.session.config;
    this.name = init.name;
    this.server = config.id;
    this.remoteName = init.wire.name;
    this.title = init.wire.title;
    this.description = init.wire.description;
    this.inputSchema = deepFreeze(structuredClone(init.wire.inputSchema));
    this.requiresApproval = config.requiresApproval;
    this.deadlineMs = config.deadlineMs;
    this.#session = init.session;
    this.#onContact = init.onContact;
    Object.freeze(this);
  }

  execute(args: Readonly<Record<string, unknown>>, options?: McpExecuteOptions): Promise<ToolResult> {
    // Not async itself (one promise less per call); #run maps every fault, and the rejection
    // handler is defence in depth: nothing may escape as a rejection.
    return this.#run(args, options?.signal).then(bound, (error: unknown) =>
      ToolResult.error(
        McpTransportException.forTransportFailure(this.server, error instanceof Error ? error.message : String(error), { cause: error }).message,
      ).withBoundedChannels(),
    );
  }

  async #run(args: Readonly<Record<string, unknown>>, signal: AbortSignal | undefined): Promise<ToolResult> {
    if (signal?.aborted === true) {
      return this.#cancelled();
    }
    if (typeof args !== 'object' || args === null || Array.isArray(args)) {
      return ToolResult.error(`McpTool.execute args of "${this.name}" must be a JSON object, got ${Array.isArray(args) ? 'an array' : args === null ? 'null' : typeof args}`);
    }
    const startedAt = performance.now();
    // Our own abort reason: the only evidence that decides "cancelled" is that the rejection IS
    // this object. Made when the caller aborts (an Error captures a stack; most calls never need
    // one), and an instance of the SDK's own error class so the SDK hands it back unchanged.
    let cancelReason: Error | undefined;
    let controller: AbortController | undefined;
    let onAbort: (() => void) | undefined;
    if (signal !== undefined) {
      const ours = new AbortController();
      onAbort = () => {
        cancelReason = newAbortReason(`the caller cancelled the call of "${this.name}"`);
        ours.abort(cancelReason);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      controller = ours;
    }
    let connection: McpConnection | undefined;
    try {
      connection = this.#session.live ?? (await this.#connect(controller?.signal, startedAt));
      const remainingMs = this.deadlineMs - (performance.now() - startedAt);
      if (remainingMs < 1) throw DEADLINE_EXHAUSTED;
      const sentAt = performance.now();
      // The deadline of the call itself is the SDK's request timeout: it also tells the server
      // with notifications/cancelled. Its rejection is never our cancel reason, so it is failed.
      const answer = await connection.callTool(this.remoteName, args, { signal: controller?.signal, timeoutMs: remainingMs });
      const latencyMs = performance.now() - sentAt;
      this.#contact(latencyMs, answer.isError);
      return toolResultFromAnswer(answer);
    } catch (error) {
      if (cancelReason !== undefined && error === cancelReason) {
        return this.#cancelled(error);
      }
      if (error === DEADLINE_EXHAUSTED) {
        return ToolResult.error(McpTransportException.forExhaustedDeadline(this.server, this.deadlineMs).message);
      }
      return ToolResult.error(toTransportException(this.server, error, { deadlineMs: this.deadlineMs, connection }).message);
    } finally {
      if (onAbort !== undefined) signal?.removeEventListener('abort', onAbort);
    }
  }

  /** Waits for the session's connection within this call's deadline and the caller's signal. */
  async #connect(signal: AbortSignal | undefined, startedAt: number): Promise<McpConnection> {
    const budget = Math.max(0, this.deadlineMs - (performance.now() - startedAt));
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(DEADLINE_EXHAUSTED), budget);
    try {
      const waiting = untilAborted(this.#session.connection(), deadline.signal);
      return await (signal === undefined ? waiting : untilAborted(waiting, signal));
    } finally {
      clearTimeout(timer);
    }
  }

  #cancelled(cause?: unknown): ToolResult {
    const exception = McpTransportException.forCancelledCall(this.server, this.remoteName, cause === undefined ? undefined : { cause });
    return ToolResult.cancelled(exception.message);
  }

  #contact(latencyMs: number, isError: boolean): void {
    if (this.#onContact === undefined) return;
    const contact: McpHealthContact = Object.freeze({
      server: this.server,
      tool: this.name,
      remoteTool: this.remoteName,
      latencyMs,
      isError,
      at: Date.now(),
    });
    try {
      this.#onContact(contact);
    } catch {
      // A failing health callback must not change the outcome of the call it reports.
    }
  }
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
