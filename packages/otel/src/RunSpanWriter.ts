import { type Context, type Span, SpanKind, SpanStatusCode, trace, type Tracer } from '@opentelemetry/api';
import type { PrivacyLevel, StoredRun } from '@runledger/trace';
import { Attr } from './attributes.js';
import { type EventPlan, interruptedCall, planStepAt, rootEnd, rootStart, type StepFields, startedEvent } from './mapping.js';

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
  readonly #openCalls = new Map<string, EventPlan>();
  #last = -1;
  #ended = false;

  constructor(tracer: Tracer, run: StoredRun, privacy: PrivacyLevel, parent: Context, beforeSpan?: BeforeSpan) {
    this.#tracer = tracer;
    this.#privacy = privacy;
    this.#beforeSpan = beforeSpan;
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
      this.#beforeSpan?.(sequence);
      const span = this.#tracer.startSpan(
        plan.name,
        { kind: plan.kind, startTime: plan.start, attributes: plan.attributes },
        this.#context,
      );
      if (plan.status !== null && plan.status.code !== SpanStatusCode.UNSET) span.setStatus(plan.status);
      span.end(plan.end);
      const callId = plan.attributes[Attr.TOOL_CALL_ID];
      if (typeof callId === 'string') this.#openCalls.delete(callId);
    } else if (plan.type === 'event') {
      this.#root.addEvent(plan.name, plan.attributes, plan.time);
    } else {
      this.#openCalls.set(plan.callId, plan.event);
    }
  }

  /** Ends the root span with the run's final status; calls still open become interrupted-call events. */
  finish(run: StoredRun): void {
    if (this.#ended) return;
    this.#ended = true;
    for (const start of this.#openCalls.values()) {
      const event = interruptedCall(start);
      this.#root.addEvent(event.name, event.attributes, event.time);
    }
    this.#openCalls.clear();
    const end = rootEnd(run, this.#privacy);
    this.#root.setAttributes(end.attributes);
    for (const event of end.events) this.#root.addEvent(event.name, event.attributes, event.time);
    this.#root.setStatus(end.status);
    this.#root.end(end.end);
  }
}
