// The Prometheus text exposition format (version 0.0.4): metric families written as `# HELP`,
// `# TYPE` and one line per sample, label values escaped as the format asks.

/** The content type of the text exposition format. @internal */
export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/** One sample of a family: its labels (in order) and value. @internal */
export interface PrometheusSample {
  readonly labels: readonly (readonly [name: string, value: string])[];
  readonly value: number;
  /** A suffix of the family's name (`_bucket`, `_count`), for a histogram's series. */
  readonly suffix?: string;
}

/** One metric family. @internal */
export interface PrometheusFamily {
  readonly name: string;
  readonly help: string;
  readonly type: 'gauge' | 'counter' | 'histogram';
  readonly samples: readonly PrometheusSample[];
}

/** A label value escaped for the text format: backslash, double quote and line feed. @internal */
export function escapeLabelValue(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

/** HELP text escaped for the text format: backslash and line feed. */
function escapeHelp(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}

/** A sample value as the format writes it (`+Inf`, `-Inf`, `NaN` for the non-finite ones). */
function formatValue(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  return String(value);
}

/**
 * Writes metric families in the text exposition format; a family without samples is left out.
 *
 * @internal
 */
export function renderPrometheusText(families: readonly PrometheusFamily[]): string {
  const lines: string[] = [];
  for (const family of families) {
    if (family.samples.length === 0) continue;
    lines.push(`# HELP ${family.name} ${escapeHelp(family.help)}`, `# TYPE ${family.name} ${family.type}`);
    for (const sample of family.samples) {
      const labels = sample.labels.map(([name, value]) => `${name}="${escapeLabelValue(value)}"`).join(',');
      lines.push(`${family.name}${sample.suffix ?? ''}${labels === '' ? '' : `{${labels}}`} ${formatValue(sample.value)}`);
    }
  }
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
}
