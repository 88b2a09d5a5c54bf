import type { IdGenerator } from '@opentelemetry/sdk-trace-base';
import { spanIdOf, traceIdOf } from './traceIds.js';

/**
 * The id generator of batch export: the tracer asks it for the ids of the span about to start,
 * which {@link RunIdGenerator.next} set from the run id and the step's sequence.
 */
export class RunIdGenerator implements IdGenerator {
  #traceId = '';
  #spanId = '';
  #runId = '';

  /** Sets the ids of the next span: the run's root span (`'run'`) or a step's. */
  next(runId: string, key: 'run' | number): void {
    if (runId !== this.#runId) {
      this.#runId = runId;
      this.#traceId = traceIdOf(runId);
    }
    this.#spanId = spanIdOf(runId, key);
  }

  generateTraceId(): string {
    return this.#traceId;
  }

  generateSpanId(): string {
    return this.#spanId;
  }
}
