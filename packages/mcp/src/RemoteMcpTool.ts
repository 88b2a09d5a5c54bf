import { McpTransportException, ToolFailureCause, ToolResult } from '@runledger/core';
import { transportFailureCause, transportFailureFacts } from './failureCauseOf.js';
import type { McpHealthContact } from './McpHealthContact.js';
import type { McpSession } from './McpSession.js';
import type { McpExecuteOptions, McpTool } from './McpTool.js';
import type { McpToolAnnotations } from './McpToolAnnotations.js';
import { CallerAbort } from './CallerAbort.js';
import type { McpCallTracing, ToolTracer, TracedCall } from './McpCallTracing.js';
import { type McpConnection, toTransportException, type WireTool } from './sdk.js';
import { toolResultFromAnswer } from './toolResultFromAnswer.js';
import { raceAbort } from './raceAbort.js';

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
  readonly annotations: McpToolAnnotations;
  readonly deadlineMs: number;
  /** Whether a call lost on a broken stream may be sent again: a trusted read-only or idempotent tool. */
  readonly #resendLost: boolean;
  readonly #session: McpSession;
  readonly #onContact: ((contact: McpHealthContact) => void) | undefined;
  /** Makes the span of each call; undefined when tracing is off. */
  readonly #tracer: ToolTracer | undefined;
  /** The bounded result of a cancelled call of this tool, made on its first cancel. */
  #cancelledResult: ToolResult | undefined;

  constructor(init: {
    readonly name: string;
    readonly wire: WireTool;
    readonly session: McpSession;
    readonly onContact: ((contact: McpHealthContact) => void) | undefined;
    readonly tracing?: McpCallTracing | undefined;
  }) {
    const config = init.session.config;
    this.name = init.name;
    this.server = config.id;
    this.remoteName = init.wire.name;
    this.title = init.wire.title;
    this.description = init.wire.description;
    this.inputSchema = deepFreeze(structuredClone(init.wire.inputSchema));
    this.requiresApproval = config.requiresApproval;
    this.annotations = Object.freeze({ ...init.wire.annotations });
    this.deadlineMs = config.deadlineMs;
    this.#resendLost =
      config.trustAnnotations === true && (this.annotations.readOnlyHint === true || this.annotations.idempotentHint === true);
    this.#session = init.session;
    this.#onContact = init.onContact;
    this.#tracer = init.tracing?.forTool(config, this.remoteName, this.name);
    Object.freeze(this);
  }

  execute(args: Readonly<Record<string, unknown>>, options?: McpExecuteOptions): Promise<ToolResult> {
    // A traced call's span ends where its result is made (each path below ends it once).
    return this.#execute(args, options, this.#tracer?.start(options?.toolCallId));
  }

  #execute(
    args: Readonly<Record<string, unknown>>,
    options: McpExecuteOptions | undefined,
    call: TracedCall | undefined,
  ): Promise<ToolResult> {
    // Not async: a call on a live connection makes one promise of its own (the SDK's, with our
    // handlers on it). Every path resolves; nothing the server or the wire does becomes a rejection.
    let abort: CallerAbort | undefined;
    try {
      const signal = options?.signal;
      if (signal?.aborted === true) {
        return Promise.resolve(ended(call, this.#cancelled(0)));
      }
      if (typeof args !== 'object' || args === null || Array.isArray(args)) {
        const got = Array.isArray(args) ? 'an array' : args === null ? 'null' : typeof args;
        // Never sent: the caller's arguments are not an object, which is no fault of the server.
        return Promise.resolve(
          ended(
            call,
            ToolResult.failure(
              `McpTool.execute args of "${this.name}" must be a JSON object, got ${got}`,
              ToolFailureCause.INVALID_ARGUMENTS,
            )
              .withBoundedChannels()
              .withSends(0),
          ),
        );
      }
      abort = signal === undefined ? undefined : new CallerAbort(signal, this.name);
      const live = this.#session.live;
      return live !== undefined
        ? this.#send(live, args, abort, this.deadlineMs, call)
        : this.#connectAndSend(args, abort, performance.now(), call).then(undefined, (error: unknown) => {
            // never: every path of it resolves; a span is ended all the same
            call?.endUnexpected();
            throw error;
          });
    } catch (error) {
      abort?.release();
      return Promise.resolve(ended(call, this.#unexpected(error, 0)));
    }
  }

  /** Waits for the session's connection within the call's deadline and the caller's signal, then sends. */
  async #connectAndSend(
    args: Readonly<Record<string, unknown>>,
    abort: CallerAbort | undefined,
    startedAt: number,
    call: TracedCall | undefined,
  ): Promise<ToolResult> {
    let connection: McpConnection;
    try {
      connection = await this.#connect(abort?.signal, startedAt);
    } catch (error) {
      abort?.release();
      return ended(call, this.#failure(error, abort, undefined, call, 0));
    }
    const remainingMs = this.deadlineMs - (performance.now() - startedAt);
    if (remainingMs < 1) {
      abort?.release();
      return ended(call, this.#failure(DEADLINE_EXHAUSTED, abort, connection, call, 0));
    }
    return this.#send(connection, args, abort, remainingMs, call);
  }

  /**
   * Sends the call. The deadline of the call itself is the SDK's request timeout: it also tells
   * the server with notifications/cancelled. Its rejection is never our abort reason, so it is
   * failed.
   */
  #send(
    connection: McpConnection,
    args: Readonly<Record<string, unknown>>,
    abort: CallerAbort | undefined,
    remainingMs: number,
    call: TracedCall | undefined,
  ): Promise<ToolResult> {
    // The latency is measured only for a health callback to report it to.
    const sentAt = this.#onContact === undefined ? 0 : performance.now();
    try {
      call?.connected(connection);
      return connection.callTool(
        this.remoteName,
        args,
        call === undefined
          ? { signal: abort?.signal, timeoutMs: remainingMs, resendLost: this.#resendLost }
          : { signal: abort?.signal, timeoutMs: remainingMs, resendLost: this.#resendLost, meta: call.meta, onSent: call.onSent },
        (answer, sends) => {
          abort?.release();
          let result: ToolResult;
          try {
            result = toolResultFromAnswer(answer).withBoundedChannels().withSends(sends);
          } catch (error) {
            // An answer we cannot turn into a result ends failed, and a failed call is no contact.
            return ended(call, this.#failure(error, undefined, connection, call, sends));
          }
          this.#contact(sentAt, answer.isError === true);
          return ended(call, result);
        },
        (error, sends) => {
          abort?.release();
          return ended(call, this.#failure(error, abort, connection, call, sends));
        },
      );
    } catch (error) {
      // Defence in depth: a connection that throws instead of rejecting (whether it wrote is unknown).
      abort?.release();
      return Promise.resolve(ended(call, this.#failure(error, abort, connection, call, 1)));
    }
  }

  /**
   * The result of a call that did not get an answer: cancelled when the rejection is our own abort,
   * else failed; `sends` is how many times its request was written towards the server.
   */
  #failure(
    error: unknown,
    abort: CallerAbort | undefined,
    connection: McpConnection | undefined,
    call: TracedCall | undefined,
    sends: number,
  ): ToolResult {
    try {
      if (abort?.isCancel(error) === true) {
        return this.#cancelled(sends);
      }
      if (this.#session.closed) {
        // The registry's owner closed it, before or while the call ran: our own side gave the call
        // up, so it ends cancelled and is never charged to the server.
        return this.#cancelled(sends);
      }
      const exception =
        error === DEADLINE_EXHAUSTED
          ? McpTransportException.forExhaustedDeadline(this.server, this.deadlineMs)
          : toTransportException(this.server, error, { deadlineMs: this.deadlineMs, connection });
      call?.faulted(exception);
      return ToolResult.failure(exception.message, transportFailureCause(exception), transportFailureFacts(exception))
        .withBoundedChannels()
        .withSends(sends);
    } catch (unexpected) {
      return this.#unexpected(unexpected, sends);
    }
  }

  /** Defence in depth: what no path above should ever throw still ends the call failed. */
  #unexpected(error: unknown, sends: number): ToolResult {
    const detail = error instanceof Error ? error.message : String(error);
    return ToolResult.failure(
      McpTransportException.forTransportFailure(this.server, detail, { cause: error }).message,
      ToolFailureCause.TRANSPORT_FAILURE,
    )
      .withBoundedChannels()
      .withSends(sends);
  }

  /** Waits for the session's connection within this call's deadline and the caller's signal. */
  async #connect(signal: AbortSignal | undefined, startedAt: number): Promise<McpConnection> {
    const budget = Math.max(0, this.deadlineMs - (performance.now() - startedAt));
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(DEADLINE_EXHAUSTED), budget);
    try {
      const waiting = raceAbort(this.#session.connection(), deadline.signal);
      return await (signal === undefined ? waiting : raceAbort(waiting, signal));
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * The result of a cancelled call. Its content is the same for every cancel of this tool (the
   * exception's cause is not part of its message), so it is made once, on the first cancel: a cancel
   * then builds no Error (a stack capture) between the abort and its result.
   */
  #cancelled(sends: number): ToolResult {
    const bounded = (this.#cancelledResult ??= ToolResult.cancelled(
      McpTransportException.forCancelledCall(this.server, this.remoteName).message,
    ).withBoundedChannels());
    return bounded.withSends(sends);
  }

  /** Reports an answered call, sent at `sentAt`, to the health callback if there is one. */
  #contact(sentAt: number, isError: boolean): void {
    const onContact = this.#onContact;
    if (onContact === undefined) return;
    const contact: McpHealthContact = Object.freeze({
      server: this.server,
      tool: this.name,
      remoteTool: this.remoteName,
      latencyMs: performance.now() - sentAt,
      isError,
      at: Date.now(),
    });
    try {
      onContact(contact);
    } catch {
      // A failing health callback must not change the outcome of the call it reports.
    }
  }
}

/** Ends the call's span, when it is traced, with the result it ends with; returns the result. */
function ended(call: TracedCall | undefined, result: ToolResult): ToolResult {
  return call === undefined ? result : call.end(result);
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
