// Test helpers: the fixture MCP server of @runledger/mcp as a real stdio child process, a real
// SQLite store file, scripted answers for the AI SDK's mock model, and the stored steps in a
// comparable shape. Not part of the build.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { McpServerRegistry, type McpTool, parseServerConfig } from '@runledger/mcp';
import { SqliteRunStore } from '@runledger/store-sqlite';
import type { StoredStep } from '@runledger/trace';
import { type LanguageModelMiddleware, simulateReadableStream } from 'ai';

type GenerateResult = Awaited<ReturnType<NonNullable<LanguageModelMiddleware['wrapGenerate']>>>;
type StreamResult = Awaited<ReturnType<NonNullable<LanguageModelMiddleware['wrapStream']>>>;
export type StreamPart = StreamResult['stream'] extends ReadableStream<infer Part> ? Part : never;

/** The fixture MCP server of @runledger/mcp (run with plain `node`). */
export const FIXTURE_SERVER = fileURLToPath(new URL('../../../mcp/src/testing/fixture-server.mjs', import.meta.url));

/**
 * The scratch folders made in this process, removed when it exits: a benchmark's process does;
 * vitest's workers never run exit handlers, so under vitest the run's own temporary folder holds
 * them (vitest.tempRoot.mjs) and goes when the run ends.
 */
const scratchFolders: string[] = [];
process.once('exit', () => {
  for (const folder of scratchFolders) rmSync(folder, { recursive: true, force: true });
});

/** A fresh folder with a fresh events file for the fixture server (removed when the test process exits). */
export function scratch(): { dir: string; eventsFile: string; dbPath: string } {
  const dir = mkdtempSync(path.join(tmpdir(), 'runledger-ai-sdk-'));
  scratchFolders.push(dir);
  const eventsFile = path.join(dir, 'events.jsonl');
  writeFileSync(eventsFile, '');
  return { dir, eventsFile, dbPath: path.join(dir, 'runs.sqlite') };
}

/** A registry of the fixture server as a stdio child process (server id `fixture`). */
export function fixtureRegistry(options: { eventsFile?: string; id?: string; requiresApproval?: boolean } = {}): McpServerRegistry {
  return McpServerRegistry.create(
    parseServerConfig({
      servers: [
        {
          id: options.id ?? 'fixture',
          transport: {
            type: 'stdio',
            command: process.execPath,
            args: [FIXTURE_SERVER],
            env: options.eventsFile === undefined ? {} : { FIXTURE_EVENTS_FILE: options.eventsFile },
          },
          deadlineMs: 30_000,
          ...(options.requiresApproval === true && { requiresApproval: true }),
        },
      ],
    }),
  );
}

/** The tool of that name, or a clear failure. */
export function toolNamed(tools: readonly McpTool[], name: string): McpTool {
  const tool = tools.find((t) => t.name === name);
  if (tool === undefined) throw new Error(`no tool ${name} among ${tools.map((t) => t.name).join(', ')}`);
  return tool;
}

/** Opens a SQLite store file that notices a cancel requested through it within 20 ms. */
export function openStore(dbPath: string): Promise<SqliteRunStore> {
  return SqliteRunStore.open({ path: dbPath, cancelPollMs: 20 });
}

const USAGE = (input: number, output: number): GenerateResult['usage'] => ({
  inputTokens: { total: input, noCache: input, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: output, text: output, reasoning: undefined },
});

/** A model answer that asks for tool calls (an input given as a string is sent as it is, unparsable or not). */
export function toolCallsAnswer(
  calls: readonly { id: string; name: string; input: Record<string, unknown> | string }[],
  usage: [number, number] = [100, 20],
): GenerateResult {
  return {
    content: calls.map((call) => ({
      type: 'tool-call' as const,
      toolCallId: call.id,
      toolName: call.name,
      input: typeof call.input === 'string' ? call.input : JSON.stringify(call.input),
    })),
    finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
    usage: USAGE(...usage),
    warnings: [],
  };
}

/** The usage of a scripted stream's `finish` part. */
export const STREAM_USAGE: GenerateResult['usage'] = USAGE(10, 5);

/** A scripted streamed answer: `parts`, then a `finish` part with this finish reason (`tool-calls` by default). */
export function streamAnswer(
  parts: readonly StreamPart[],
  finishReason: { unified: string; raw: string } = { unified: 'tool-calls', raw: 'tool_calls' },
): Pick<StreamResult, 'stream'> {
  return {
    stream: simulateReadableStream({
      chunks: [...parts, { type: 'finish', usage: STREAM_USAGE, finishReason } as StreamPart],
      chunkDelayInMs: null,
    }),
  };
}

/** A scripted streamed answer with text only (finish reason `stop`). */
export function textStreamAnswer(text: string): Pick<StreamResult, 'stream'> {
  return streamAnswer(
    [
      { type: 'text-start', id: 't' },
      { type: 'text-delta', id: 't', delta: text },
      { type: 'text-end', id: 't' },
    ],
    { unified: 'stop', raw: 'stop' },
  );
}

/** A model answer with text only. */
export function textAnswer(text: string, usage: [number, number] = [300, 40]): GenerateResult {
  return { content: [{ type: 'text', text }], finishReason: { unified: 'stop', raw: 'stop' }, usage: USAGE(...usage), warnings: [] };
}

/** A stream that sends `parts` and then waits, sending nothing more until it is cancelled. */
export function stallingStream(parts: readonly StreamPart[]): { stream: ReadableStream<StreamPart>; cancelled: Promise<unknown> } {
  let onCancel!: (reason: unknown) => void;
  const cancelled = new Promise<unknown>((resolve) => {
    onCancel = resolve;
  });
  const stream = new ReadableStream<StreamPart>({
    start(controller) {
      for (const part of parts) controller.enqueue(part);
    },
    pull() {
      return new Promise<void>(() => undefined);
    },
    cancel(reason) {
      onCancel(reason);
    },
  });
  return { stream, cancelled };
}

/** The fields of a stored step a test compares (payload keys that vary per run are left out). */
export interface StepView {
  readonly kind: string;
  readonly round: number;
  readonly [key: string]: unknown;
}

const COMPARED = [
  'model',
  'content',
  'finishReason',
  'promptTokens',
  'completionTokens',
  'requestedToolCalls',
  'toolName',
  'toolServer',
  'toolArguments',
  'toolResult',
  'toolOutcome',
  'toolIsError',
  'toolFailureCause',
];

/** Each stored step as kind, round and the compared payload keys it has. */
export function viewSteps(steps: readonly StoredStep[]): StepView[] {
  return steps.map((step) => {
    const payload = JSON.parse(step.payload) as Record<string, unknown>;
    const view: Record<string, unknown> = { kind: step.kind, round: step.round };
    for (const key of COMPARED) if (payload[key] !== undefined) view[key] = payload[key];
    return view as StepView;
  });
}

/**
 * Every tool_start step names a call that a later tool step ends, no two starts or ends share an
 * id, and every tool step without a start is a call that was not sent (failed, with a cause).
 */
export function startsPaired(steps: readonly StoredStep[]): boolean {
  const payloads = steps.map(
    (s) => JSON.parse(s.payload) as { kind: string; toolCallId?: string; toolOutcome?: string; toolFailureCause?: string },
  );
  const starts = payloads.filter((p) => p.kind === 'tool_start').map((p) => p.toolCallId);
  const ends = payloads.filter((p) => p.kind === 'tool');
  const endIds = ends.map((p) => p.toolCallId);
  const unsent = ends.filter((p) => !starts.includes(p.toolCallId));
  return (
    new Set(starts).size === starts.length &&
    new Set(endIds).size === endIds.length &&
    starts.every((id) => id !== undefined && endIds.includes(id)) &&
    unsent.every((p) => p.toolOutcome === 'failed' && typeof p.toolFailureCause === 'string')
  );
}
