// The fleet the fleet benchmark loads, described once for both stores: which runs exist, their
// status, and every step of each (kind, server, outcome, payload). PostgreSQL gets the same rows
// from one INSERT … SELECT per table (fleetPostgres.mjs, the SQL spelling of these rules);
// SQLite gets them through importRun from stepsOf() below.

export const SERVERS = 50;
export const SPAN_MS = 30 * 86_400_000;
const NORMAL_STEP_MS = 200;
const BIG_STEP_MS = 500;

/**
 * The sizes of one fleet: `runs` runs, `steps` steps in all, two runs of `big` steps (one finished,
 * one still running), the rest equal.
 */
export function fleetShape(runs, steps, big) {
  const perRun = Math.floor((steps - 2 * big) / (runs - 2));
  // the big runs are 2 % from the newest end: recent, but not on the first page
  const bigIndex = runs - 1 - Math.max(2, Math.floor(runs / 50));
  return { runs, steps: perRun * (runs - 2) + 2 * big, big, perRun, bigIndex, liveIndex: bigIndex - 1 };
}

/** Run r is one of the two big runs. */
export function isBigRun(shape, r) {
  return r === shape.bigIndex || r === shape.liveIndex;
}

/** Run r's status: 85 % completed, 8 % failed, 4 % cancelled, 2 % interrupted, 1 % running. */
export function statusOf(r) {
  const h = (r * 7919) % 100;
  return h < 85 ? 'completed' : h < 93 ? 'failed' : h < 97 ? 'cancelled' : h < 99 ? 'interrupted' : 'running';
}

/** A deterministic UUID for run r (so both stores and every size name runs alike). */
export function runIdOf(r) {
  const hex = (r + 1).toString(16).padStart(12, '0');
  return `f1ee7000-0000-4000-8000-${hex}`;
}

/** Step i of run r: llm, tool_start, tool, llm, …; a tool step's outcome by a hash of (r, i). */
export function stepFacts(r, i) {
  const kind = i % 3 === 0 ? 'llm' : i % 3 === 1 ? 'tool_start' : 'tool';
  const call = Math.floor(i / 3);
  const server = `srv${String((r * 13 + call * 7) % SERVERS).padStart(2, '0')}`;
  const h = (r * 1103 + i * 7919) % 1000;
  // every 7th run is troubled (10 % of its calls fail), the others fail 0.5 %; every 53rd run has cancellations
  const outcome = (r % 7 === 0 && h < 100) || h < 5 ? 'failed' : r % 53 === 0 && h >= 100 && h < 130 ? 'cancelled' : 'ok';
  const durationMs = kind === 'llm' ? 300 + h : kind === 'tool_start' ? 0 : 5 + ((h * 37) % 2000);
  return { kind, call, server, outcome, durationMs, round: call };
}

export function stepMs(isBig) {
  return isBig ? BIG_STEP_MS : NORMAL_STEP_MS;
}

/** Run r as importRun takes it (counters are the store's business: importRun recounts them). */
export function runOf(shape, start, r) {
  const createdAt = start + Math.floor((r * SPAN_MS) / shape.runs);
  const n = isBigRun(shape, r) ? shape.big : shape.perRun;
  const status = r === shape.bigIndex ? 'completed' : r === shape.liveIndex ? 'running' : statusOf(r);
  const end = createdAt + n * stepMs(isBigRun(shape, r)) + 1000;
  return {
    id: runIdOf(r),
    status,
    configuration: `agent-${r % 12}`,
    actor: `user${r % 40}`,
    createdAt,
    startedAt: createdAt,
    finishedAt: status === 'running' ? null : end,
    terminationReason: status === 'failed' ? 'model error' : status === 'cancelled' ? 'cancel requested' : null,
    cancelRequestedAt: status === 'cancelled' ? end - 500 : null,
    heartbeatAt: null,
    stepCount: n,
    outcomeCounts: { ok: 0, failed: 0, cancelled: 0 },
  };
}

/** The steps of run r (as importRun takes them), with the payloads PostgreSQL's loader writes too. */
export function stepsOf(shape, run, r) {
  const isBig = isBigRun(shape, r);
  const steps = new Array(run.stepCount);
  for (let i = 0; i < run.stepCount; i++) {
    const f = stepFacts(r, i);
    const createdAt = run.createdAt + i * stepMs(isBig);
    const toolName = `mcp_${f.server}_search`;
    const toolCallId = `c${r}-${f.call}`;
    let payload;
    if (f.kind === 'llm') {
      payload = {
        kind: 'llm',
        round: f.round,
        durationMs: f.durationMs,
        model: 'demo-model-1',
        promptTokens: 1200 + i,
        completionTokens: 88,
        finishReason: 'tool_calls',
      };
    } else if (f.kind === 'tool_start') {
      payload = {
        kind: 'tool_start',
        round: f.round,
        durationMs: 0,
        toolName,
        toolServer: f.server,
        toolArguments: { query: `q${i}`, limit: 10 },
        toolCallId,
      };
    } else {
      payload = {
        kind: 'tool',
        round: f.round,
        durationMs: f.durationMs,
        toolName,
        toolServer: f.server,
        toolIsError: f.outcome !== 'ok',
        toolOutcome: f.outcome,
        toolCallId,
      };
    }
    steps[i] = {
      runId: run.id,
      sequence: i,
      kind: f.kind,
      round: f.round,
      durationMs: f.durationMs,
      createdAt,
      payload: JSON.stringify(payload),
      toolServer: f.kind === 'llm' ? null : f.server,
      toolOutcome: f.kind === 'tool' ? f.outcome : null,
    };
  }
  return steps;
}
