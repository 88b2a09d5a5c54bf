// The /metrics output read back by a real parser of the Prometheus text format
// (parse-prometheus-text-format), as a flat list of samples.
import parsePrometheusTextFormat from 'parse-prometheus-text-format';

/** One sample read back: its family, type, labels and value. */
export interface ParsedSample {
  readonly family: string;
  readonly type: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

/** Parses the text format; throws as the parser does on text that breaks the format. */
export function parsePrometheus(text: string): ParsedSample[] {
  return parsePrometheusTextFormat(text).flatMap((family) =>
    family.metrics.map((metric) => ({ family: family.name, type: family.type, labels: metric.labels ?? {}, value: Number(metric.value) })),
  );
}

/** The value of the one sample of a family with exactly these labels (others ignored), or undefined. */
export function valueOf(samples: readonly ParsedSample[], family: string, labels: Record<string, string>): number | undefined {
  const found = samples.filter((s) => s.family === family && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  if (found.length > 1) throw new Error(`${found.length} samples of ${family} match ${JSON.stringify(labels)}`);
  return found[0]?.value;
}
