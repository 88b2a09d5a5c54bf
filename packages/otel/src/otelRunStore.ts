import { context, trace, type Tracer, type TracerProvider } from '@opentelemetry/api';
import {
  type AppendStepInput,
  canPruneRuns,
  canReadOpenCalls,
  canReadToolCallTotals,
  type ToolCallTotals,
  type ToolCallTotalsQuery,
  type CreateRunInput,
  type FinishRunInput,
  isPrivacyLevel,
  type OpenCallsRead,
  PrivacyLevel,
  type PruneRunsQuery,
  type PruneRunsResult,
  type RunPage,
  type RunQuery,
  type RunStore,
  type ServerHealth,
  type ServerHealthQuery,
  type StepQuery,
  type StoredRun,
  type CancelRequestInput,
  type StoredStep,
} from '@runledger/trace';
import { SCOPE_NAME } from './attributes.js';
import { reportOnce } from './reportOnce.js';
import { RunSpanWriter } from './RunSpanWriter.js';
import { SCOPE_VERSION } from './scopeVersion.js';

/**
 * Options of {@link otelRunStore}.
 *
 * @public
 */
export interface OtelRunStoreOptions {
  /** Where the spans go; default the global provider (`trace.getTracerProvider()` of `@opentelemetry/api`). */
  readonly tracerProvider?: TracerProvider;
  /** What of each step's content the spans carry; default `metadata` (no prompt, answer, argument or result text). */
  readonly privacy?: PrivacyLevel;
  /** Told when the tracer threw (the run goes on); default: one line on stderr, the first time. */
  readonly onError?: (error: unknown) => void;
}

/**
 * Wraps a run store so that every run recorded into it is also emitted, live, as an OpenTelemetry
 * trace into a `TracerProvider` (docs/otel.md).
 *
 * @remarks
 * Every call goes to `store` and its answer is returned as it came. After the store accepted a
 * write, the run's spans follow it: `createRun` starts the run's root span (a child of the span
 * active in the OpenTelemetry context then), each `appendStep` writes the step's span or event with
 * the step's own times, `finishRun` ends the root span with the final status. A started call of an
 * MCP server's tool offers its `execute_tool` span to `@runledger/mcp`'s tracing, so a call traced
 * by both is one span (docs/otel.md, "With MCP tracing on too"). A tracer that throws
 * is reported to `onError` and never reaches the run or its recording. The optional members of
 * RunStore (`pruneRuns`, `readOpenCalls`, `toolCallTotals`) are there exactly when `store` has them, so
 * `canPruneRuns`, `canReadOpenCalls` and `canReadToolCallTotals` answer for the wrapper as for the store.
 *
 * @throws TypeError from `otelRunStore` when `privacy` is not a privacy level or `tracerProvider`
 * has no `getTracer` function.
 * @public
 */
export function otelRunStore(store: RunStore, options: OtelRunStoreOptions = {}): RunStore {
  const privacy = options.privacy ?? PrivacyLevel.METADATA;
  if (!isPrivacyLevel(privacy)) {
    throw new TypeError(
      `OtelRunStoreOptions.privacy must be one of "none", "metadata", "redacted", "full", got ${JSON.stringify(privacy)}`,
    );
  }
  const provider = options.tracerProvider ?? trace.getTracerProvider();
  if (typeof (provider as Partial<TracerProvider> | null)?.getTracer !== 'function') {
    throw new TypeError('OtelRunStoreOptions.tracerProvider must be an OpenTelemetry TracerProvider (an object with getTracer())');
  }
  return new OtelRunStore(
    store,
    provider,
    privacy,
    options.onError ??
      reportOnce(
        (message) => `runledger otel: the tracer failed (${message}); the runs are recorded as before, their spans may be incomplete`,
      ),
  );
}

class OtelRunStore implements RunStore {
  readonly #store: RunStore;
  readonly #provider: TracerProvider;
  #tracer: Tracer | null = null;
  readonly #privacy: PrivacyLevel;
  readonly #onError: (error: unknown) => void;
  readonly #runs = new Map<string, RunSpanWriter>();
  declare readonly pruneRuns?: (query: PruneRunsQuery) => Promise<PruneRunsResult>;
  declare readonly readOpenCalls?: (runId: string) => Promise<OpenCallsRead | null>;
  declare readonly toolCallTotals?: (query?: ToolCallTotalsQuery) => Promise<readonly ToolCallTotals[]>;

  constructor(store: RunStore, provider: TracerProvider, privacy: PrivacyLevel, onError: (error: unknown) => void) {
    this.#store = store;
    this.#provider = provider;
    this.#privacy = privacy;
    this.#onError = onError;
    // present only when the store has them: a wrapper that offered them would make callers think it prunes
    if (canPruneRuns(store)) this.pruneRuns = (query) => store.pruneRuns(query);
    if (canReadOpenCalls(store)) this.readOpenCalls = (runId) => store.readOpenCalls(runId);
    if (canReadToolCallTotals(store)) this.toolCallTotals = (query) => store.toolCallTotals(query);
  }

  /** Runs `emit`, keeping whatever it throws away from the caller. */
  #guard(emit: () => void): void {
    try {
      emit();
    } catch (error) {
      this.#report(error);
    }
  }

  #report(error: unknown): void {
    try {
      this.#onError(error);
    } catch {
      // the listener's own failure stays away from the run too
    }
  }

  async createRun(input: CreateRunInput): Promise<StoredRun> {
    const parent = context.active();
    const run = await this.#store.createRun(input);
    this.#guard(() => {
      this.#tracer ??= this.#provider.getTracer(SCOPE_NAME, SCOPE_VERSION);
      this.#runs.set(run.id, new RunSpanWriter(this.#tracer, run, this.#privacy, parent, undefined, true));
    });
    return run;
  }

  appendStep(runId: string, step: AppendStepInput): Promise<number> {
    // `then`, not `await`: this is the recording's hot path
    return this.#store.appendStep(runId, step).then((sequence) => {
      const writer = this.#runs.get(runId);
      if (writer !== undefined) {
        try {
          writer.step(sequence, step);
        } catch (error) {
          this.#report(error);
        }
      }
      return sequence;
    });
  }

  async finishRun(runId: string, finish: FinishRunInput): Promise<StoredRun> {
    const run = await this.#store.finishRun(runId, finish);
    const writer = this.#runs.get(runId);
    if (writer !== undefined && run.status !== 'running') {
      this.#runs.delete(runId);
      this.#guard(() => writer.finish(run));
    }
    return run;
  }

  requestCancel(runId: string, at?: number, request?: CancelRequestInput): Promise<StoredRun> {
    return this.#store.requestCancel(runId, at, request);
  }

  heartbeat(runId: string, at?: number): Promise<void> {
    return this.#store.heartbeat(runId, at);
  }

  recoverInterrupted(staleBefore: number): Promise<readonly string[]> {
    return this.#store.recoverInterrupted(staleBefore);
  }

  getRun(runId: string): Promise<StoredRun | null> {
    return this.#store.getRun(runId);
  }

  listRuns(query?: RunQuery): Promise<RunPage> {
    return this.#store.listRuns(query);
  }

  readSteps(runId: string, query?: StepQuery): Promise<readonly StoredStep[]> {
    return this.#store.readSteps(runId, query);
  }

  serverHealth(query?: ServerHealthQuery): Promise<readonly ServerHealth[]> {
    return this.#store.serverHealth(query);
  }

  watchCancel(runId: string, onCancel: () => void): () => void {
    return this.#store.watchCancel(runId, onCancel);
  }

  importRun(run: StoredRun, steps: readonly StoredStep[]): Promise<boolean> {
    return this.#store.importRun(run, steps);
  }

  close(): Promise<void> {
    return this.#store.close();
  }
}
