import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';
import * as coreInternal from '@runledger/core/internal';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { RunCancelledError } from './recording/RunCancelledError.js';
import { RunFinishRefusedError } from './recording/RunFinishRefusedError.js';
import { RunRecordError } from './recording/RunRecordError.js';
import { RunStep } from './step/RunStep.js';
import { RunStepError } from './step/RunStepError.js';
import { RunStepReadError } from './step/RunStepReadError.js';
import { RunStoreError } from './store/RunStoreError.js';

// Two copies of @runledger/trace in one process (two node_modules folders, or a vm realm) must
// still recognise each other's errors, with `is()` and with `instanceof`. A copy is the same source
// imported again under another URL (`?copy=N`): a distinct module instance, with its own class.

type Copy = {
  RunCancelledError: typeof RunCancelledError;
  RunFinishRefusedError: typeof RunFinishRefusedError;
  RunRecordError: typeof RunRecordError;
  RunStepError: typeof RunStepError;
  RunStepReadError: typeof RunStepReadError;
  RunStoreError: typeof RunStoreError;
};

const here: Copy = { RunCancelledError, RunFinishRefusedError, RunRecordError, RunStepError, RunStepReadError, RunStoreError };

async function importCopy(n: number): Promise<Copy> {
  const load = async <T>(path: string): Promise<T> => (await import(/* @vite-ignore */ `${path}?copy=${n}`)) as T;
  return {
    ...(await load<Pick<Copy, 'RunCancelledError'>>('./recording/RunCancelledError.ts')),
    ...(await load<Pick<Copy, 'RunFinishRefusedError'>>('./recording/RunFinishRefusedError.ts')),
    ...(await load<Pick<Copy, 'RunRecordError'>>('./recording/RunRecordError.ts')),
    ...(await load<Pick<Copy, 'RunStepError'>>('./step/RunStepError.ts')),
    ...(await load<Pick<Copy, 'RunStepReadError'>>('./step/RunStepReadError.ts')),
    ...(await load<Pick<Copy, 'RunStoreError'>>('./store/RunStoreError.ts')),
  };
}

const step = RunStep.of({ kind: 'tool', round: 0, durationMs: 1, toolName: 'mcp_a_b', toolOutcome: 'ok', toolWrites: true });

/** One error of each class, made by the given copy. */
function errorsOf(copy: Copy): Array<[keyof Copy, Error]> {
  return [
    ['RunCancelledError', new copy.RunCancelledError('r', 'stop', 'local')],
    ['RunFinishRefusedError', new copy.RunFinishRefusedError('r', 'completed', new Error('gone'))],
    ['RunRecordError', new copy.RunRecordError(step, new Error('hook'))],
    ['RunStepError', new copy.RunStepError('sequence', 'bad')],
    ['RunStepReadError', new copy.RunStepReadError(['a', 0], 'bad')],
    ['RunStoreError', copy.RunStoreError.runNotFound('r')],
  ];
}

describe('two copies of @runledger/trace', () => {
  it('the copies really are distinct classes', async () => {
    const copy = await importCopy(1);
    for (const name of Object.keys(here) as Array<keyof Copy>) {
      expect(copy[name]).not.toBe(here[name]);
    }
  });

  it('each error class recognises an error made by any copy, with is() and instanceof, and no other class does', async () => {
    const copies: Array<[string, Copy]> = [
      ['this module', here],
      ['?copy=1', await importCopy(1)],
      ['?copy=2', await importCopy(2)],
    ];
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

  it('an error made in another vm realm is recognised, though a prototype check fails there', () => {
    // RunCancelledError transpiled to CommonJS and evaluated in a new context: its Error is that
    // realm's Error. It takes the brand helper from @runledger/core/internal, as it does installed.
    const source = readFileSync(fileURLToPath(new URL('./recording/RunCancelledError.ts', import.meta.url)), 'utf8');
    const { outputText } = ts.transpileModule(source, {
      compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: false },
    });
    const module = { exports: {} as Record<string, unknown> };
    const require = (name: string): unknown => {
      if (name !== '@runledger/core/internal') throw new Error(`no module ${name}`);
      return coreInternal;
    };
    vm.runInContext(`(function (exports, require, module) {\n${outputText}\n})`, vm.createContext({}))(module.exports, require, module);
    const There = module.exports.RunCancelledError as typeof RunCancelledError;
    const fromRealm = new There('r', 'stop', 'store');
    expect(fromRealm instanceof Error).toBe(false);
    expect(RunCancelledError.is(fromRealm)).toBe(true);
    expect(fromRealm instanceof RunCancelledError).toBe(true);
    expect(There.is(new RunCancelledError('r', 'stop', 'local'))).toBe(true);
    expect(RunStoreError.is(fromRealm)).toBe(false);
  });

  it('instanceof a subclass is the ordinary prototype-chain test', () => {
    class Special extends RunStepError {}
    expect(new Special('f', 'm') instanceof Special).toBe(true);
    expect(new Special('f', 'm') instanceof RunStepError).toBe(true);
    expect(new RunStepError('f', 'm') instanceof Special).toBe(false);
  });
});
