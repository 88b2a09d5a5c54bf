// The live path's metrics of the sample runs: recorded through otelMetricsRunStore into an SDK
// MeterProvider whose reader exports with the official OTLP/HTTP protobuf metrics exporter, then
// flushed and shut down (each export cumulative: read the last request).
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-proto';
import { MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { InMemoryRunStore } from '@runledger/trace';
import { otelMetricsRunStore } from '../otelMetricsRunStore.js';
import { recordSampleRuns, steppingClock } from './sampleRuns.js';

/** Records the sample runs live and sends their histograms to `url` (the metrics URL, with its path). */
export async function sendLiveSampleMetrics(url: string, headers: Record<string, string> = {}): Promise<void> {
  const reader = new PeriodicExportingMetricReader({
    exporter: new OTLPMetricExporter({ url, headers }),
    exportIntervalMillis: 3_600_000,
  });
  const meterProvider = new MeterProvider({ readers: [reader] });
  const clock = steppingClock();
  await recordSampleRuns(otelMetricsRunStore(InMemoryRunStore.create({ clock }), { meterProvider }), clock);
  await meterProvider.forceFlush();
  await meterProvider.shutdown();
}
