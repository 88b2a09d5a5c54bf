import { ROOT_CONTEXT } from '@opentelemetry/api';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import type { PrivacyLevel, RunStore } from '@runledger/trace';
import { SCOPE_NAME } from './attributes.js';
import { CollectingSpanProcessor } from './CollectingSpanProcessor.js';
import { sendAwaited } from './DeadlineOtlpExporter.js';
import { RunIdGenerator } from './RunIdGenerator.js';
import { RunSpanWriter } from './RunSpanWriter.js';
import { SCOPE_VERSION } from './scopeVersion.js';
import { readStepRecords, type RunSelection, selectRuns } from './storedRuns.js';

/** Spans handed to the exporter in one request, at most. */
const SPANS_PER_REQUEST = 512;

/** Which runs to export, and how. */
export interface ExportRunsSelection extends RunSelection {
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
    if (spans.length > 0) await sendAwaited(exporter, spans);
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
      for await (const step of readStepRecords(store, run.id)) {
        writer.step(step.sequence, step);
        if (collector.size >= SPANS_PER_REQUEST) await flush();
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
