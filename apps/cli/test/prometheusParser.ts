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

/** One histogram series read back: its labels, buckets by upper bound in the text's order, `_count` and `_sum`. */
export interface ParsedHistogram {
  readonly labels: Readonly<Record<string, string>>;
  readonly buckets: readonly (readonly [le: string, count: number])[];
  readonly count: number;
  readonly sum: number;
}

/**
 * The series of one histogram family. The parser must read the family as a histogram; its own
 * histogram reading keeps one unlabelled series only (it drops the labels of `_sum` and `_count`
 * and merges every series' buckets), so the series are read from the same text with the family's
 * `# TYPE` line left out: then the parser reads `_bucket`, `_sum` and `_count` as families of
 * their own, each sample with all its labels.
 */
export function histogramsOf(text: string, family: string): ParsedHistogram[] {
  const found = parsePrometheusTextFormat(text).find((f) => f.name === family);
  if (found === undefined) return [];
  if (found.type !== 'HISTOGRAM') throw new Error(`${family} is read as ${found.type}, not a histogram`);
  const untyped = parsePrometheusTextFormat(text.replace(`# TYPE ${family} histogram\n`, ''));
  // the parser starts a new family at every change of name: one per series and suffix
  const series = (suffix: string) => untyped.filter((f) => f.name === `${family}${suffix}`).flatMap((f) => f.metrics);
  const key = (labels: Record<string, string> | undefined) =>
    JSON.stringify(
      Object.entries(labels ?? {})
        .filter(([name]) => name !== 'le')
        .sort(),
    );
  const histograms = new Map<string, { labels: Record<string, string>; buckets: [string, number][]; count: number; sum: number }>();
  for (const metric of series('_count')) {
    const labels = metric.labels ?? {};
    histograms.set(key(labels), { labels, buckets: [], count: Number(metric.value), sum: Number.NaN });
  }
  const of = (labels: Record<string, string> | undefined) => {
    const h = histograms.get(key(labels));
    if (h === undefined) throw new Error(`a ${family} series without _count: ${key(labels)}`);
    return h;
  };
  for (const metric of series('_sum')) of(metric.labels).sum = Number(metric.value);
  for (const metric of series('_bucket')) of(metric.labels).buckets.push([metric.labels?.['le'] ?? '', Number(metric.value)]);
  return [...histograms.values()];
}
