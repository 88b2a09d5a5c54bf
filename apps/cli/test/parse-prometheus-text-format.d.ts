// Types of the parser's CommonJS module (it ships none): the families it reads from the text format.
declare module 'parse-prometheus-text-format' {
  interface ParsedMetric {
    readonly value?: string;
    readonly labels?: Record<string, string>;
  }
  interface ParsedFamily {
    readonly name: string;
    readonly help: string;
    readonly type: string;
    readonly metrics: readonly ParsedMetric[];
  }
  export default function parsePrometheusTextFormat(text: string): ParsedFamily[];
}
