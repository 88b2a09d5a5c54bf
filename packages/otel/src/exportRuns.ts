import { ROOT_CONTEXT } from '@opentelemetry/api';
import { ExportResultCode } from '@opentelemetry/core';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import type { PrivacyLevel, RunStore, StoredRun } from '@runledger/trace';
import { SCOPE_NAME } from './attributes.js';
import { CollectingSpanProcessor } from './CollectingSpanProcessor.js';
import { RunIdGenerator } from './RunIdGenerator.js';
import { RunSpanWriter } from './RunSpanWriter.js';
import { SCOPE_VERSION } from './scopeVersion.js';

/** Steps read from the store at a time. */
const STEP_PAGE = 1000;
/** Spans handed to the exporter in one request, at most. */
const SPANS_PER_REQUEST = 512;

/** Which runs to export, and how. */
export interface ExportRunsSelection {
  readonly runIds?: readonly string[];
  readonly since?: number;
  readonly privacy: PrivacyLevel;
  readonly serviceName: string;
  readonly onRun?: (run: { readonly runId: string; readonly exported: boolean; readonly spans: number } & ExportRunsCounts) => void;
}

/** What an export did. */
export interface ExportRunsCounts {
  readonly runsSeen: number;
  readonly runsExported: number;
  readonly runsSkipped: number;
  readonly spansExported: number;
}

/** The runs to export: the ids given (each must exist), else every run created at or after `since` (all without it). */
async function* selectRuns(store: RunStore, selection: ExportRunsSelection): AsyncGenerator<StoredRun> {
  if (selection.runIds !== undefined) {
    for (const id of selection.runIds) {
      const run = await store.getRun(id);
      if (run === null) throw new Error(`there is no run "${id}" in the store`);
      yield run;
    }
    return;
  }
  let cursor: string | null = null;
  do {
    const page = await store.listRuns({ limit: 200, cursor, ...(selection.since === undefined ? {} : { createdFrom: selection.since }) });
    yield* page.runs;
    cursor = page.nextCursor;
  } while (cursor !== null);
}

function sendTo(exporter: SpanExporter, spans: ReadableSpan[]): Promise<void> {
  return new Promise((resolve, reject) => {
    exporter.export(spans, (result) => {
      if (result.code === ExportResultCode.SUCCESS) resolve();
      else reject(result.error ?? new Error('the exporter reported a failure without an error'));
    });
  });
}

function parse(payload: string): Readonly<Record<string, unknown>> | null {
  try {
    const value: unknown = JSON.parse(payload);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/**
 * Exports finished runs of a store through a span exporter, a run at a time (steps read in pages,
 * spans sent in requests of at most 512, each awaited), with ids derived from the run id and the
 * step sequence. Runs still running are skipped.
 *
 * @throws Error from `exportRuns` when a run id is not in the store, or the exporter failed (the
 * runs before it were sent).
 */
export async function exportRuns(store: RunStore, exporter: SpanExporter, selection: ExportRunsSelection): Promise<ExportRunsCounts> {
  const ids = new RunIdGenerator();
  const collector = new CollectingSpanProcessor();
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: selection.serviceName }),
    idGenerator: ids,
    spanProcessors: [collector],
  });
  const tracer = provider.getTracer(SCOPE_NAME, SCOPE_VERSION);
  let runsSeen = 0;
  let runsExported = 0;
  let runsSkipped = 0;
  let spansExported = 0;
  const flush = async (): Promise<number> => {
    const spans = collector.take();
    if (spans.length > 0) await sendTo(exporter, spans);
    spansExported += spans.length;
    return spans.length;
  };
  try {
    for await (const run of selectRuns(store, selection)) {
      runsSeen++;
      if (run.status === 'running') {
        runsSkipped++;
        selection.onRun?.({ runId: run.id, exported: false, spans: 0, runsSeen, runsExported, runsSkipped, spansExported });
        continue;
      }
      const before = spansExported;
      const writer = new RunSpanWriter(tracer, run, selection.privacy, ROOT_CONTEXT, (key) => ids.next(run.id, key));
      let from = 0;
      for (;;) {
        const steps = await store.readSteps(run.id, { fromSequence: from, limit: STEP_PAGE });
        for (const stored of steps) {
          writer.step(stored.sequence, {
            kind: stored.kind,
            round: stored.round,
            durationMs: stored.durationMs,
            createdAt: stored.createdAt,
            payload: parse(stored.payload),
          });
          if (collector.size >= SPANS_PER_REQUEST) await flush();
        }
        if (steps.length < STEP_PAGE) break;
        from = steps[steps.length - 1]!.sequence + 1;
      }
      writer.finish(run);
      await flush();
      runsExported++;
      selection.onRun?.({
        runId: run.id,
        exported: true,
        spans: spansExported - before,
        runsSeen,
        runsExported,
        runsSkipped,
        spansExported,
      });
    }
  } finally {
    await provider.shutdown();
  }
  return { runsSeen, runsExported, runsSkipped, spansExported };
}
