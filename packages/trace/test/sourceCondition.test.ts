// Tests read sibling packages' sources, not their builds: every package lists the export
// condition "@runledger/source" (→ ./src/index.ts) in package.json `exports`, and vitest.base.mjs
// resolves it, so an edit to core is seen here without rebuilding core. The published
// package.json has no such condition (publishConfig.exports); tools' pack checks hold that.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type * as Core from '@runledger/core';
import { ToolResult } from '@runledger/core';
import { describe, expect, it } from 'vitest';

const coreDir = fileURLToPath(new URL('../../core/', import.meta.url));

describe('tests resolve sibling packages through the "@runledger/source" export condition', () => {
  it("'@runledger/core' is the module at packages/core/src/index.ts, not dist/index.js", async () => {
    const fromSource = (await import(path.join(coreDir, 'src/index.ts'))) as typeof Core;
    const fromDist = (await import(path.join(coreDir, 'dist/index.js'))) as typeof Core;
    expect(ToolResult).toBe(fromSource.ToolResult);
    // Were it dist/index.js, a class would exist twice (the dual-package hazard) and this would fail.
    expect(ToolResult).not.toBe(fromDist.ToolResult);
  });
});
