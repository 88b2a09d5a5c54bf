// The house rules eslint.config.mjs enforces (docs/architecture.md, "House rules, enforced by
// tooling"), linted as if the text were the given repository file: the MCP SDK only behind
// packages/mcp/src/sdk.ts, no testing code from product code, nothing unused.
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
import { ROOT } from './helpers.js';

const eslint = new ESLint({ cwd: ROOT });

/** The rule ids and offending import sources ESLint reports on `text` linted as `filePath`. */
async function findings(filePath: string, text: string): Promise<string[]> {
  const [result] = await eslint.lintText(text, { filePath: `${ROOT}/${filePath}` });
  return (result?.messages ?? []).map((m) => `${m.ruleId ?? 'fatal'} ${/^'([^']+)'/.exec(m.message)?.[1] ?? m.message}`);
}

const IMPORTS = [
  "import { sample } from './testing/random.js';",
  "import { seedRun } from '../test/seedRun.js';",
  "import { Client } from '@modelcontextprotocol/client';",
  "import { McpServer } from '@modelcontextprotocol/server';",
  "import { runRunStoreContract } from '@runledger/store-contract';",
  "import { it } from 'vitest';",
  "import { MockLanguageModelV3 } from 'ai/test';",
  'export const all = [sample, seedRun, Client, McpServer, runRunStoreContract, it, MockLanguageModelV3];',
  '',
].join('\n');

const restricted = (...sources: string[]) => sources.map((source) => `no-restricted-imports ${source}`);

describe('eslint.config.mjs', () => {
  it('product code imports neither the MCP SDK nor testing code', async () => {
    expect(await findings('packages/core/src/ToolOutcome.ts', IMPORTS)).toEqual(
      restricted(
        './testing/random.js',
        '../test/seedRun.js',
        '@modelcontextprotocol/client',
        '@modelcontextprotocol/server',
        '@runledger/store-contract',
        'vitest',
      ),
    );
  });

  it('sdk.ts is the door to the SDK; the demo servers use its server side only; tests may use testing code', async () => {
    expect(await findings('packages/mcp/src/sdk.ts', IMPORTS)).toEqual(
      restricted('./testing/random.js', '../test/seedRun.js', '@runledger/store-contract', 'vitest'),
    );
    expect(await findings('apps/cli/src/demo/demoServer.ts', IMPORTS)).toEqual(
      restricted('./testing/random.js', '../test/seedRun.js', '@modelcontextprotocol/client', '@runledger/store-contract', 'vitest'),
    );
    expect(await findings('packages/core/src/ToolResult.test.ts', IMPORTS)).toEqual(
      restricted('@modelcontextprotocol/client', '@modelcontextprotocol/server'),
    );
    expect(await findings('packages/mcp/src/McpTool.outcomes.test.ts', IMPORTS)).toEqual([]);
  });

  it('reports what is unused; a `_` parameter a signature needs passes', async () => {
    const text = [
      "import { readFileSync } from 'node:fs';",
      'const unused = 1;',
      'export const used = (_first: number, second: number, third: number): number => second;',
      '',
    ].join('\n');
    expect(await findings('packages/core/src/ToolOutcome.ts', text)).toEqual([
      '@typescript-eslint/no-unused-vars readFileSync',
      '@typescript-eslint/no-unused-vars unused',
      '@typescript-eslint/no-unused-vars third',
    ]);
  });
});
