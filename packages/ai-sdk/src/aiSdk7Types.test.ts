// The peer range is `^6.0.0 || ^7.0.0`: the published sources, and what a team on ai 7 writes with
// them (types-ai7/ai7Loop.ts: toolApproval, timeout.toolMs, repairToolCall), must type-check with
// `ai` resolving to AI SDK 7 (types-ai7/tsconfig.json maps it to the devDependency `ai7`). tsc runs on any
// Node, so this check runs in the Node 20 pass too.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const PACKAGE_DIR = fileURLToPath(new URL('..', import.meta.url));

describe('the sources against AI SDK 7’s types', () => {
  it('type-check with ai resolving to ai 7 (types-ai7/tsconfig.json)', { timeout: 120_000 }, () => {
    const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
    const r = spawnSync(process.execPath, [tsc, '-p', 'types-ai7/tsconfig.json', '--noEmit', '--listFiles'], {
      cwd: PACKAGE_DIR,
      encoding: 'utf8',
    });
    const errors = r.stdout.split('\n').filter((line) => line.includes('error TS'));
    expect(errors).toEqual([]);
    expect(r.status).toBe(0);
    // the program really had ai 7 in it, not the ai 6 of the devDependencies
    expect(r.stdout).toMatch(/\/ai@7\.\d+\.\d+[^/]*\/node_modules\/ai\/dist\/index\.d\.ts/);
    expect(r.stdout).not.toMatch(/\/ai@6\.\d+\.\d+[^/]*\/node_modules\/ai\/dist\/index\.d\.ts/);
  });
});
