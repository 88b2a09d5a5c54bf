// docs/ai-sdk.md's loop as written: the snippet is taken from the page, type-checked with the
// package's compiler options and run — with the AI SDK's mock model as `model` and the fixture
// MCP server (a real stdio child process) as the configured server.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SqliteRunStore } from '@runledger/store-sqlite';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { scratch } from './testing/harness.js';

const PACKAGE = fileURLToPath(new URL('..', import.meta.url));
const DOC = path.join(PACKAGE, '..', '..', 'docs', 'ai-sdk.md');

/** The first ```ts block after the heading. */
export function snippetAfter(markdown: string, heading: string): string {
  const at = markdown.indexOf(`\n${heading}\n`);
  if (at < 0) throw new Error(`docs/ai-sdk.md has no heading "${heading}"`);
  const block = /```ts\n([\s\S]*?)```/.exec(markdown.slice(at));
  if (block === null) throw new Error(`docs/ai-sdk.md has no ts block after "${heading}"`);
  return block[1]!;
}

// What the page says the reader brings: `model`, `configText`, `question`.
const PREAMBLE = `
import { MockLanguageModelV3 } from 'ai/test';
import { FIXTURE_SERVER, textAnswer, toolCallsAnswer } from '../../src/testing/harness.js';
const model = new MockLanguageModelV3({
  modelId: 'doc-model',
  doGenerate: [toolCallsAnswer([{ id: 'c1', name: 'mcp_files_echo', input: { text: 'hello from the doc' } }]), textAnswer('The server said: hello from the doc')],
});
const configText = JSON.stringify({ servers: [{ id: 'files', transport: { type: 'stdio', command: process.execPath, args: [FIXTURE_SERVER] } }] });
const question = 'Echo a greeting.';
`;

describe('docs/ai-sdk.md', () => {
  const snippet = snippetAfter(readFileSync(DOC, 'utf8'), '## The whole loop');

  it('shows the whole loop in under 40 lines', () => {
    expect(snippet.trimEnd().split('\n').length).toBeLessThan(40);
  });

  it('type-checks and runs as written: the run, its LLM and tool steps land in the SQLite file', { timeout: 60_000 }, async () => {
    const folder = path.join(PACKAGE, 'temp', 'doc');
    mkdirSync(folder, { recursive: true });
    const file = path.join(folder, 'aiSdkLoop.doc.ts');
    writeFileSync(file, `${PREAMBLE}\n${snippet}\nexport {};\n`);

    const config = ts.getParsedCommandLineOfConfigFile(
      path.join(PACKAGE, 'tsconfig.json'),
      {},
      { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined },
    );
    const program = ts.createProgram([file], { ...config!.options, noEmit: true, rootDir: PACKAGE });
    const problems = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    expect(problems).toEqual([]);

    const cwd = process.cwd();
    const dir = scratch().dir;
    process.chdir(dir);
    const logged: unknown[] = [];
    const log = console.log;
    console.log = (...args: unknown[]) => void logged.push(args.join(' '));
    try {
      await import(file);
    } finally {
      console.log = log;
      process.chdir(cwd);
    }
    expect(logged).toEqual(['The server said: hello from the doc']);
    const store = await SqliteRunStore.open({ path: path.join(dir, 'runs.sqlite') });
    try {
      const [run] = (await store.listRuns()).runs;
      expect(run).toMatchObject({
        status: 'completed',
        configuration: 'support-agent@v3',
        outcomeCounts: { ok: 1, failed: 0, cancelled: 0 },
      });
      expect((await store.readSteps(run!.id)).map((s) => [s.kind, s.round, s.toolOutcome])).toEqual([
        ['request', 0, null],
        ['llm', 1, null],
        ['tool_start', 1, null],
        ['tool', 1, 'ok'],
        ['llm', 2, null],
      ]);
    } finally {
      await store.close();
    }
  });
});
