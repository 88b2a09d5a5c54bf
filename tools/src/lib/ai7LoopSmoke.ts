/**
 * The pack smoke's AI SDK 7 consumer: `@runledger/ai-sdk` and its runledger dependencies from their
 * tarballs, with `ai` 7 (the version of the package's devDependency `ai7`) as the peer, installed and
 * run on Node 24 from the npm registry (ai 7 needs Node 22; the pack smoke itself runs on the test
 * command's Node 20). The script runs one ai 7 loop with ai 7's mock model against the fixture MCP
 * server (a real stdio child process): an echo call recorded `ok`, a call that `timeout.toolMs` ends
 * recorded `failed` with cause `mcp_deadline_exhausted`.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { NODE24_VERSION } from '../node24.ts';
import { envForNode, registryNode } from './registryNode.ts';

const LOOP = `
import { generateText, isStepCount, wrapLanguageModel } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { mcpToolSet, recordingMiddleware } from '@runledger/ai-sdk';
import { McpServerRegistry, parseServerConfig } from '@runledger/mcp';
import { InMemoryRunStore, startRun } from '@runledger/trace';

const usage = { inputTokens: { total: 10, noCache: 10 }, outputTokens: { total: 5, text: 5 } };
const call = (id, name, input) => ({
  content: [{ type: 'tool-call', toolCallId: id, toolName: name, input: JSON.stringify(input) }],
  finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage, warnings: [],
});
const text = (t) => ({ content: [{ type: 'text', text: t }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] });
const registry = McpServerRegistry.create(parseServerConfig({
  servers: [{ id: 'fixture', transport: { type: 'stdio', command: process.execPath, args: [process.argv[2]] }, deadlineMs: 30000 }],
}));
const store = InMemoryRunStore.create();
const tools = await registry.tools();
const outcomes = [];
try {
  for (const [name, input] of [['mcp_fixture_echo', { text: 'ai 7' }], ['mcp_fixture_slow', { ms: 60000, tag: 'smoke' }]]) {
    const run = await startRun(store, { configuration: 'pack-smoke-ai7', spoolDir: false });
    const model = new MockLanguageModelV4({ doGenerate: [call('c1', name, input), text('done')] });
    const result = await generateText({
      model: wrapLanguageModel({ model, middleware: recordingMiddleware(run) }),
      tools: mcpToolSet(tools, { run }),
      timeout: { toolMs: 500 },
      stopWhen: isStepCount(5),
      abortSignal: run.signal,
      prompt: 'go',
    });
    await run.complete();
    const step = (await store.readSteps(run.id)).find((s) => s.kind === 'tool');
    const payload = JSON.parse(step?.payload ?? '{}');
    outcomes.push([name, result.text, payload.toolOutcome, payload.toolFailureCause ?? null]);
  }
} finally {
  await registry.close();
}
console.log(JSON.stringify({ node: process.version, outcomes }));
`;

/** The expected outcomes, as the script prints them. */
const EXPECTED = JSON.stringify([
  ['mcp_fixture_echo', 'done', 'ok', null],
  ['mcp_fixture_slow', 'done', 'failed', 'mcp_deadline_exhausted'],
]);

/**
 * Installs and runs the ai 7 consumer in `<dir>/ai7-consumer`. Returns the failures (none when it
 * passed), each naming the step.
 */
export function ai7LoopSmoke(o: {
  root: string;
  dir: string;
  specs: Readonly<Record<string, string>>;
  log: (s: string) => void;
}): string[] {
  const aiSdk = JSON.parse(readFileSync(path.join(o.root, 'packages', 'ai-sdk', 'package.json'), 'utf8')) as {
    devDependencies?: Record<string, string>;
  };
  const ai7 = /^npm:ai@(7\.\d+\.\d+)$/.exec(aiSdk.devDependencies?.ai7 ?? '')?.[1];
  if (ai7 === undefined)
    return [`ai 7 consumer: packages/ai-sdk's devDependency ai7 must be npm:ai@7.x.y, got ${aiSdk.devDependencies?.ai7}`];
  const node = registryNode(NODE24_VERSION, { log: (s) => o.log(`ai 7 consumer: ${s}`) });
  const env = { ...envForNode(node), CI: 'true' };
  const project = path.join(o.dir, 'ai7-consumer');
  mkdirSync(project, { recursive: true });
  const pick = (name: string) => {
    const spec = o.specs[name];
    if (spec === undefined) throw new Error(`ai 7 consumer: no tarball of ${name}`);
    return [name, spec] as const;
  };
  writeFileSync(
    path.join(project, 'package.json'),
    JSON.stringify(
      {
        name: 'runledger-pack-smoke-ai7',
        private: true,
        type: 'module',
        dependencies: Object.fromEntries([...['@runledger/ai-sdk', '@runledger/mcp', '@runledger/trace'].map(pick), ['ai', ai7]]),
        pnpm: { overrides: o.specs },
      },
      null,
      2,
    ),
  );
  writeFileSync(path.join(project, 'loop.mjs'), LOOP);
  const install = spawnSync('pnpm', ['install', '--prefer-offline', '--ignore-workspace', '--reporter=append-only'], {
    cwd: project,
    env,
    encoding: 'utf8',
  });
  if (install.status !== 0)
    return [`ai 7 consumer: pnpm install (ai ${ai7}, Node ${node.version}) failed:\n${install.stdout}${install.stderr}`];
  const fixture = path.join(o.root, 'packages', 'mcp', 'src', 'testing', 'fixture-server.mjs');
  const loop = spawnSync(node.node, ['loop.mjs', fixture], { cwd: project, env, encoding: 'utf8', timeout: 120_000 });
  const printed = loop.stdout.trim().split('\n').at(-1) ?? '';
  let outcomes = '';
  try {
    outcomes = JSON.stringify((JSON.parse(printed) as { outcomes: unknown }).outcomes);
  } catch {
    // not JSON: reported below with the output
  }
  if (loop.status !== 0 || outcomes !== EXPECTED) {
    return [
      `ai 7 consumer: the loop on ${node.version} with ai ${ai7} exited ${loop.status ?? loop.signal}, printed ${printed}; expected outcomes ${EXPECTED}\n${loop.stderr}`,
    ];
  }
  o.log(`@runledger/ai-sdk with ai ${ai7} on Node ${node.version}: an ai 7 loop recorded ${outcomes}`);
  return [];
}
