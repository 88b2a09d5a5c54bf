import type { Context } from '@opentelemetry/api';
import type { ReadableSpan, Span, SpanProcessor } from '@opentelemetry/sdk-trace-base';

/** Keeps every ended span until taken: batch export hands them to the exporter itself, awaiting each request. */
export class CollectingSpanProcessor implements SpanProcessor {
  #spans: ReadableSpan[] = [];

  get size(): number {
    return this.#spans.length;
  }

  /** The spans ended since the last take. */
  take(): ReadableSpan[] {
    const spans = this.#spans;
    this.#spans = [];
    return spans;
  }

  onStart(_span: Span, _parentContext: Context): void {}

  onEnd(span: ReadableSpan): void {
    this.#spans.push(span);
  }

  forceFlush(): Promise<void> {
    return Promise.resolve();
  }

  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}
