// The `/metrics` page: the ledger's server health and runs as Prometheus metric families.
import type { RunStatus } from '@runledger/trace';
import type { ServerMetrics } from '../viewModels/serverMetrics.js';
import { DURATION_BUCKETS_SECONDS, type ServerToolMetrics } from '../viewModels/toolMetrics.js';
import { type PrometheusFamily, type PrometheusSample, renderPrometheusText } from './prometheusText.js';

/** What one scrape of `/metrics` reports. @internal */
export interface MetricsPage {
  /** The window the call figures cover: `24h`, `7d` or `all`. */
  readonly window: string;
  readonly servers: ServerMetrics;
  /** Runs by status (every stored run, whatever the window); empty when the store cannot count them. */
  readonly runs: readonly (readonly [status: RunStatus, runs: number])[];
  /** Per named server, its tools' rows; empty when the store cannot list tool calls. */
  readonly tools?: readonly (ServerToolMetrics & { readonly server: string })[];
}

type Label = readonly [name: string, value: string];

/** The cumulative `_bucket` series, `_sum` and `_count` of one tool's answered-call durations. */
function histogramSamples(labels: readonly Label[], buckets: readonly number[], seconds: number): PrometheusSample[] {
  let seen = 0;
  const bounds = [...DURATION_BUCKETS_SECONDS.map(String), '+Inf'];
  const cumulative = bounds.map((le, i) => ({ labels: [...labels, ['le', le] as const], value: (seen += buckets[i]!), suffix: '_bucket' }));
  return [...cumulative, { labels, value: seconds, suffix: '_sum' }, { labels, value: seen, suffix: '_count' }];
}

/** The per-server-and-tool families: calls by outcome, failures by cause, the answered-call histogram, tools folded. */
function toolFamilies(page: MetricsPage): PrometheusFamily[] {
  const w = ['window', page.window] as const;
  const servers = page.tools ?? [];
  const rows = servers.flatMap((server) => server.rows);
  const st = (row: (typeof rows)[number]): Label[] => [
    ['server', row.server],
    ['tool', row.tool],
  ];
  return [
    {
      name: 'runledger_tool_calls_by_tool',
      help: 'Ended MCP tool calls by server, tool and outcome (ok, failed, cancelled) in the window; tools beyond the per-server label limit are summed into tool="other".',
      type: 'gauge',
      samples: rows.flatMap((row) => OUTCOMES.map((outcome) => ({ labels: [...st(row), ['outcome', outcome], w], value: row[outcome] }))),
    },
    {
      name: 'runledger_tool_call_failures_by_tool',
      help: 'Failed MCP tool calls by server, tool and failure cause (error_type); charged="false" for causes not the server\'s doing.',
      type: 'gauge',
      samples: rows.flatMap((row) =>
        row.failureCauses.map((cause) => ({
          labels: [...st(row), ['error_type', cause.cause], ['charged', String(cause.charged)], w],
          value: cause.calls,
        })),
      ),
    },
    {
      name: 'runledger_tool_call_answered_duration_seconds',
      help: 'Duration of the answered MCP tool calls (ok, or an error answer; never a cancel) by server and tool in the window.',
      type: 'histogram',
      samples: rows
        .filter((row) => row.buckets.some((n) => n > 0))
        .flatMap((row) => histogramSamples([...st(row), w], row.buckets, row.answeredSeconds)),
    },
    {
      name: 'runledger_metrics_tools_folded',
      help: 'How many tools of a server beyond the per-server label limit were summed into tool="other".',
      type: 'gauge',
      samples: servers.map((server) => ({ labels: [['server', server.server], w], value: server.folded })),
    },
  ];
}

const OUTCOMES = ['ok', 'failed', 'cancelled'] as const;

/**
 * The metric families of a scrape. Every count is a gauge: it is read from the store over a
 * window (or all stored data), so it falls when the window slides on or old runs are pruned,
 * which a counter must never do; the per-tool duration histogram is read over the window too.
 *
 * @internal
 */
export function metricsFamilies(page: MetricsPage): PrometheusFamily[] {
  const { rows } = page.servers;
  const w = ['window', page.window] as const;
  const perServer = (value: (row: (typeof rows)[number]) => number | null): PrometheusSample[] =>
    rows.flatMap((row) => {
      const v = value(row);
      return v === null ? [] : [{ labels: [['server', row.server], w], value: v }];
    });
  const quantiles = rows.flatMap((row) =>
    (
      [
        ['0.5', row.p50DurationMs],
        ['0.95', row.p95DurationMs],
      ] as const
    ).flatMap(([q, ms]) => (ms === null ? [] : [{ labels: [['server', row.server], ['quantile', q], w] as const, value: ms / 1000 }])),
  );
  return [
    {
      name: 'runledger_tool_calls',
      help: 'Ended MCP tool calls by server and outcome (ok, failed, cancelled) in the window; a cancel is an outcome, never a failure.',
      type: 'gauge',
      samples: rows.flatMap((row) =>
        OUTCOMES.map((outcome) => ({ labels: [['server', row.server], ['outcome', outcome], w], value: row[outcome] })),
      ),
    },
    {
      name: 'runledger_tool_call_failures',
      help: 'Failed MCP tool calls by server and failure cause (error_type); charged="false" for causes not the server\'s doing (left out of its failure rate).',
      type: 'gauge',
      samples: rows.flatMap((row) =>
        row.failureCauses.map((cause) => ({
          labels: [['server', row.server], ['error_type', cause.cause], ['charged', String(cause.charged)], w],
          value: cause.calls,
        })),
      ),
    },
    {
      name: 'runledger_tool_calls_answered',
      help: 'MCP tool calls the server answered (ok, or an error answer) in the window: the calls the duration quantiles are over.',
      type: 'gauge',
      samples: perServer((row) => row.answered),
    },
    {
      name: 'runledger_tool_call_duration_seconds',
      help: "Quantiles (0.5, 0.95) of the duration of a server's answered calls in the window, from the store's duration histogram.",
      type: 'gauge',
      samples: quantiles,
    },
    {
      name: 'runledger_server_failure_rate',
      help: "A server's failure rate in the window as the servers page shows it: cancels and failures not charged to it left out.",
      type: 'gauge',
      samples: perServer((row) => row.failureRate),
    },
    {
      name: 'runledger_server_flaky',
      help: 'Whether the servers page calls the server flaky in the window (1) or not (0).',
      type: 'gauge',
      samples: perServer((row) => row.flaky),
    },
    {
      name: 'runledger_tool_calls_open',
      help: 'MCP tool calls on the wire now (started, not ended) by server, in the newest running runs.',
      type: 'gauge',
      samples: rows.filter((row) => row.open > 0).map((row) => ({ labels: [['server', row.server]], value: row.open })),
    },
    {
      name: 'runledger_metrics_servers_folded',
      help: 'How many servers beyond the label limit were summed into server="other".',
      type: 'gauge',
      samples: [{ labels: [w], value: page.servers.folded }],
    },
    {
      name: 'runledger_runs',
      help: 'Stored runs by status.',
      type: 'gauge',
      samples: page.runs.map(([status, runs]) => ({ labels: [['status', status]], value: runs })),
    },
    ...toolFamilies(page),
  ];
}

/** The `/metrics` page in the text exposition format. @internal */
export function renderMetricsView(page: MetricsPage): string {
  return renderPrometheusText(metricsFamilies(page));
}
