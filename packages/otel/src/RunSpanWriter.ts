import { type Context, type Span, SpanKind, SpanStatusCode, trace, type Tracer } from '@opentelemetry/api';
import type { PrivacyLevel, StoredRun } from '@runledger/trace';
import { Attr } from './attributes.js';
import {
  type EventPlan,
  interruptedCall,
  planStepAt,
  rootEnd,
  rootStart,
  type StepFields,
  startedCallSpan,
  startedEvent,
} from './mapping.js';
import { UNKNOWN_PROVIDER } from './providerName.js';
import { offerToolSpan, type OpenToolSpan, withdrawToolSpan } from '@runledger/core/internal';

/** A started call: its `tool_start` event, and (live) its offer to the MCP instrumentation and the span it opened. */
interface OpenCall {
  readonly start: EventPlan;
  offer?: { readonly server: string; readonly toolName: string; readonly open: OpenToolSpan };
  span?: Span;
}

/** Told which span is about to start: the run's (`'run'`) or a step's (its sequence). */
export type BeforeSpan = (key: 'run' | number) => void;

/**
 * Writes one run as spans through a tracer, as its steps arrive: the root span when made, each
 * step's span (or event of the root span) in `step()`, the root's end in `finish()`. Live export
 * and batch export both go through it, so they give the same spans.
 *
 * @remarks
 * A step whose sequence is not past the last one written is skipped (a retried append that the
 * store answered twice). Memory per run: the root span and the calls started and not yet ended.
 */
export class RunSpanWriter {
  readonly #tracer: Tracer;
  readonly #privacy: PrivacyLevel;
  readonly #root: Span;
  readonly #context: Context;
  readonly #beforeSpan: BeforeSpan | undefined;
  readonly #openCalls = new Map<string, OpenCall>();
  readonly #offerCalls: boolean;
  /** The provider of the run's first `chat` span that named one: the root span's `gen_ai.provider.name`. */
  #provider: string | undefined;
  #last = -1;
  #ended = false;

  /**
   * `offerCalls` (live export only): each started call of an MCP server's tool offers its
   * `execute_tool` span to the MCP instrumentation (@runledger/core's toolSpanHandoff.ts) until its `tool` step
   * arrives; a claimed span is opened then, and ended with the step's attributes and status.
   */
  constructor(tracer: Tracer, run: StoredRun, privacy: PrivacyLevel, parent: Context, beforeSpan?: BeforeSpan, offerCalls = false) {
    this.#tracer = tracer;
    this.#privacy = privacy;
    this.#beforeSpan = beforeSpan;
    this.#offerCalls = offerCalls;
    const root = rootStart(run, privacy);
    beforeSpan?.('run');
    this.#root = tracer.startSpan(root.name, { kind: SpanKind.INTERNAL, startTime: root.start, attributes: root.attributes }, parent);
    this.#context = trace.setSpan(parent, this.#root);
    const started = startedEvent(run);
    this.#root.addEvent(started.name, started.attributes, started.time);
  }

  /** Writes one stored step (in sequence order). */
  step(sequence: number, step: StepFields): void {
    if (this.#ended || sequence <= this.#last) return;
    this.#last = sequence;
    const plan = planStepAt(sequence, step, this.#privacy);
    if (plan.type === 'span') {
      const callId = plan.attributes[Attr.TOOL_CALL_ID];
      const call = typeof callId === 'string' ? this.#openCalls.get(callId) : undefined;
      if (call !== undefined) {
        this.#openCalls.delete(callId as string);
        this.#withdraw(call);
      }
      const provider = plan.attributes[Attr.PROVIDER];
      if (this.#provider === undefined && typeof provider === 'string' && provider !== UNKNOWN_PROVIDER) this.#provider = provider;
      let span = call?.span;
      if (span === undefined) {
        this.#beforeSpan?.(sequence);
        span = this.#tracer.startSpan(plan.name, { kind: plan.kind, startTime: plan.start, attributes: plan.attributes }, this.#context);
      } else {
        // the span the MCP instrumentation claimed and filled: the step's attributes join its own
        span.setAttributes(plan.attributes);
      }
      if (plan.status !== null && plan.status.code !== SpanStatusCode.UNSET) span.setStatus(plan.status);
      span.end(plan.end);
    } else if (plan.type === 'event') {
      this.#root.addEvent(plan.name, plan.attributes, plan.time);
    } else {
      const call: OpenCall = { start: plan.event };
      this.#openCalls.set(plan.callId, call);
      if (this.#offerCalls) this.#offer(call, plan.callId);
    }
  }

  /** Offers a started call of an MCP server's tool to the MCP instrumentation. */
  #offer(call: OpenCall, toolCallId: string): void {
    const server = call.start.attributes[Attr.TOOL_SERVER];
    const toolName = call.start.attributes[Attr.TOOL_NAME];
    if (typeof server !== 'string' || typeof toolName !== 'string') return;
    const open: OpenToolSpan = Object.assign(
      () => {
        call.offer = undefined;
        if (this.#ended || call.span !== undefined) return undefined;
        const { name, attributes } = startedCallSpan(call.start);
        call.span = this.#tracer.startSpan(name, { kind: SpanKind.INTERNAL, startTime: call.start.time, attributes }, this.#context);
        return call.span;
      },
      { toolCallId },
    );
    call.offer = { server, toolName, open };
    offerToolSpan(server, toolName, open);
  }

  #withdraw(call: OpenCall): void {
    const offer = call.offer;
    if (offer === undefined) return;
    call.offer = undefined;
    withdrawToolSpan(offer.server, offer.toolName, offer.open);
  }

  /** Ends the root span with the run's final status; calls still open become interrupted-call events. */
  finish(run: StoredRun): void {
    if (this.#ended) return;
    this.#ended = true;
    const end = rootEnd(run, this.#privacy);
    for (const call of this.#openCalls.values()) {
      this.#withdraw(call);
      const event = interruptedCall(call.start);
      this.#root.addEvent(event.name, event.attributes, event.time);
      // a claimed call whose `tool` step never came: its span ends with the run
      call.span?.end(end.end);
    }
    this.#openCalls.clear();
    this.#root.setAttributes(end.attributes);
    this.#root.setAttribute(Attr.PROVIDER, this.#provider ?? UNKNOWN_PROVIDER);
    for (const event of end.events) this.#root.addEvent(event.name, event.attributes, event.time);
    this.#root.setStatus(end.status);
    this.#root.end(end.end);
  }
}
