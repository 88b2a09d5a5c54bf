import { describe, expect, it } from 'vitest';
import { McpConfigError } from './McpConfigError.js';

// Two copies of @runledger/mcp in one process (two node_modules folders) must recognise each
// other's configuration errors, with `is()` and with `instanceof`. A copy is McpConfigError.ts
// imported again under another URL (`?copy=N`): a distinct module instance, with its own class.

async function copyOf(n: number): Promise<typeof McpConfigError> {
  return ((await import(/* @vite-ignore */ `./McpConfigError.ts?copy=${n}`)) as { McpConfigError: typeof McpConfigError }).McpConfigError;
}

describe('two copies of McpConfigError', () => {
  it('recognise each other’s errors with is() and instanceof, whichever copy made them', async () => {
    const copies: Array<[string, typeof McpConfigError]> = [
      ['this module', McpConfigError],
      ['?copy=1', await copyOf(1)],
      ['?copy=2', await copyOf(2)],
    ];
    expect(copies[1]?.[1]).not.toBe(McpConfigError);
    for (const [maker, Made] of copies) {
      const error = new Made(['servers[0].id must match ^[a-z0-9_]{1,32}$']);
      for (const [checker, By] of copies) {
        expect(By.is(error), `${checker} McpConfigError.is() on an error of ${maker}`).toBe(true);
        expect(error instanceof By, `${checker} instanceof McpConfigError on an error of ${maker}`).toBe(true);
      }
    }
  });

  it('no copy takes another error for one, and instanceof a subclass stays the prototype-chain test', async () => {
    const Copy = await copyOf(3);
    const other = Object.assign(new Error('MCP server configuration refused: x'), { name: 'McpConfigError', problems: ['x'] });
    expect(McpConfigError.is(other)).toBe(false);
    expect(Copy.is(other)).toBe(false);
    expect(other instanceof Copy).toBe(false);
    class Special extends Copy {}
    expect(new Special(['x']) instanceof McpConfigError).toBe(true);
    expect(new McpConfigError(['x']) instanceof Special).toBe(false);
  });
});
