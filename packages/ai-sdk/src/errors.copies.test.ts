import { ToolResult } from '@runledger/core';
import { describe, expect, it } from 'vitest';
import { McpToolCallError } from './McpToolCallError.js';
import { McpToolNotApprovedError } from './McpToolNotApprovedError.js';

// Two copies of @runledger/ai-sdk in one process (two node_modules folders) must recognise each
// other's errors, with `is()` and with `instanceof`: the AI SDK hands a tool's error to code that
// may have loaded the other copy. A copy is the same source imported again under another URL
// (`?copy=N`): a distinct module instance, with its own classes.

type Copy = { McpToolCallError: typeof McpToolCallError; McpToolNotApprovedError: typeof McpToolNotApprovedError };

const here: Copy = { McpToolCallError, McpToolNotApprovedError };

async function importCopy(n: number): Promise<Copy> {
  const load = async <T>(path: string): Promise<T> => (await import(/* @vite-ignore */ `${path}?copy=${n}`)) as T;
  return {
    ...(await load<Pick<Copy, 'McpToolCallError'>>('./McpToolCallError.ts')),
    ...(await load<Pick<Copy, 'McpToolNotApprovedError'>>('./McpToolNotApprovedError.ts')),
  };
}

const tool = { name: 'mcp_github_create_issue', server: 'github' };

/** One error of each class, made by the given copy. */
function errorsOf(copy: Copy): Array<[keyof Copy, Error]> {
  return [
    ['McpToolCallError', new copy.McpToolCallError(tool, ToolResult.cancelled('stopped'))],
    ['McpToolNotApprovedError', new copy.McpToolNotApprovedError(tool)],
  ];
}

describe('two copies of @runledger/ai-sdk', () => {
  it('each error class recognises an error made by any copy, with is() and instanceof, and no other class does', async () => {
    const copies: Array<[string, Copy]> = [
      ['this module', here],
      ['?copy=1', await importCopy(1)],
      ['?copy=2', await importCopy(2)],
    ];
    for (const name of Object.keys(here) as Array<keyof Copy>) expect(copies[1]?.[1][name]).not.toBe(here[name]);
    for (const [maker, from] of copies) {
      for (const [checker, by] of copies) {
        for (const [name, error] of errorsOf(from)) {
          for (const other of Object.keys(here) as Array<keyof Copy>) {
            const expected = other === name;
            expect(by[other].is(error), `${checker} ${other}.is() on a ${name} of ${maker}`).toBe(expected);
            expect(error instanceof by[other], `${checker} instanceof ${other} on a ${name} of ${maker}`).toBe(expected);
          }
        }
      }
    }
  });
});
