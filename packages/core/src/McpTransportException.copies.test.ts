import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import vm from 'node:vm';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as here from './index.js';

// Two copies of @runledger/core in one process (two node_modules folders, or a vm realm) must
// still recognise each other's exceptions and results. The copies are made from this very source,
// so the test needs no build: every non-test module of src/ is transpiled to CommonJS and joined
// into ONE self-contained script (like a bundle). That script is then
//   - evaluated in a new vm context: a second realm with its own Error, Object, WeakSet …;
//   - written to a temporary .mjs file and imported twice, as `?copy=1` and `?copy=2`: two
//     distinct ES module instances of the same file, like two installed copies.

type Core = typeof here;

const SRC = fileURLToPath(new URL('.', import.meta.url));

function bundle(): string {
  const modules: string[] = [];
  for (const file of readdirSync(SRC)) {
    if (!file.endsWith('.ts') || file.endsWith('.test.ts') || file.endsWith('.test-d.ts') || file.endsWith('.d.ts')) continue;
    const { outputText } = ts.transpileModule(readFileSync(join(SRC, file), 'utf8'), {
      compilerOptions: {
        module: ts.ModuleKind.CommonJS,
        target: ts.ScriptTarget.ES2022,
        verbatimModuleSyntax: false,
        esModuleInterop: false,
      },
      fileName: file,
    });
    modules.push(`${JSON.stringify(`./${file.replace(/\.ts$/, '.js')}`)}: function (exports, require, module) {\n${outputText}\n}`);
  }
  return `(function () {
  const factories = {\n${modules.join(',\n')}\n};
  const cache = {};
  function require(name) {
    if (cache[name]) return cache[name].exports;
    const factory = factories[name];
    if (!factory) throw new Error('bundle: no module ' + name);
    const module = { exports: {} };
    cache[name] = module;
    factory(module.exports, require, module);
    return module.exports;
  }
  return require('./index.js');
})()`;
}

let script = '';
let realm: { core: Core; context: vm.Context } | undefined;
let copy1: Core | undefined;
let copy2: Core | undefined;
let dir = '';

beforeAll(async () => {
  script = bundle();
  const context = vm.createContext({ Buffer });
  realm = { core: vm.runInContext(script, context, { filename: 'core-realm.js' }) as Core, context };
  dir = mkdtempSync(join(tmpdir(), 'runledger-core-copy-'));
  const file = join(dir, 'core.mjs');
  writeFileSync(file, `const core = ${script};\nexport default core;\n`);
  const url = pathToFileURL(file).href;
  copy1 = ((await import(/* @vite-ignore */ `${url}?copy=1`)) as { default: Core }).default;
  copy2 = ((await import(/* @vite-ignore */ `${url}?copy=2`)) as { default: Core }).default;
});

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const copies = (): Array<[string, Core]> => [
  ['this module', here],
  ['import ?copy=1', copy1 as Core],
  ['import ?copy=2', copy2 as Core],
  ['vm realm', (realm as { core: Core }).core],
];

describe('two copies of @runledger/core', () => {
  it('the copies really are distinct: different classes, different realms', () => {
    const classes = new Set(copies().map(([, core]) => core.McpTransportException));
    expect(classes.size).toBe(4);
    expect(new Set(copies().map(([, core]) => core.ToolResult)).size).toBe(4);
    const realmError = realm?.core.McpTransportException.forTimeout('s', 1);
    // A plain prototype check fails across realms: only the brand can recognise it.
    expect(realmError instanceof Error).toBe(false);
    expect(Object.getPrototypeOf(Object.getPrototypeOf(realmError))).not.toBe(Error.prototype);
    expect(Object.getPrototypeOf(copy1?.McpTransportException.forTimeout('s', 1))).not.toBe(here.McpTransportException.prototype);
  });

  it('McpTransportException.is and instanceof recognise an exception made by any copy, in every copy', () => {
    for (const [maker, from] of copies()) {
      for (const [checker, by] of copies()) {
        for (const error of [from.McpTransportException.forTimeout('s', 1), from.McpTransportException.forCancelledCall('s', 'tool')]) {
          expect(by.McpTransportException.is(error), `${checker} .is() on an exception of ${maker}`).toBe(true);
          expect(error instanceof by.McpTransportException, `${checker} instanceof on an exception of ${maker}`).toBe(true);
        }
        expect(by.McpTransportException.is(new Error('x'))).toBe(false);
        expect(by.McpTransportException.is(from.ToolResult.text('x'))).toBe(false);
      }
    }
  });

  it('isCancellation(), code and cause survive the crossing', () => {
    for (const [, from] of copies()) {
      const cause = new Error('abort');
      const cancelled: unknown = from.McpTransportException.forCancelledCall('s', 'tool', { cause });
      const timeout: unknown = from.McpTransportException.forTimeout('s', 5);
      for (const [, by] of copies()) {
        if (!by.McpTransportException.is(cancelled) || !by.McpTransportException.is(timeout)) {
          throw new Error('not recognised');
        }
        expect(cancelled.isCancellation()).toBe(true);
        expect(cancelled.code).toBe(by.McpTransportErrorCode.CANCELLED);
        expect(cancelled.cause).toBe(cause);
        expect(timeout.isCancellation()).toBe(false);
        expect(timeout.code).toBe(by.McpTransportErrorCode.TIMEOUT);
      }
    }
  });

  it('a copy still refuses subclassing and direct construction', () => {
    for (const [, core] of copies()) {
      const Ctor = core.McpTransportException as unknown as new (...args: unknown[]) => object;
      expect(() => new Ctor('mcp_cancelled', 's', 'm', true)).toThrow();
      const Sub = class extends Ctor {};
      expect(() => new Sub()).toThrow();
      expect(core.McpTransportException.forCancelledCall('s') instanceof Sub).toBe(false);
    }
  });

  it('ToolResult.is and instanceof recognise a result of any copy, with its outcome intact', () => {
    for (const [, from] of copies()) {
      const results = [from.ToolResult.text('a'), from.ToolResult.error('b'), from.ToolResult.cancelled('c')];
      for (const [, by] of copies()) {
        for (const result of results) {
          expect(by.ToolResult.is(result)).toBe(true);
          expect(result instanceof by.ToolResult).toBe(true);
          expect(by.isToolOutcome(result.outcome)).toBe(true);
          expect(result.isError).toBe(result.outcome !== by.ToolOutcome.OK);
        }
        expect(by.ToolResult.is(from.McpTransportException.forTimeout('s', 1))).toBe(false);
      }
    }
  });

  it('ToolArtifact and WriteTarget: is and instanceof recognise any copy’s, yet a result takes only its own copy’s', () => {
    for (const [maker, from] of copies()) {
      const artifact = from.ToolArtifact.text('label', 'text');
      const target = from.WriteTarget.created('ticket', '7');
      for (const [checker, by] of copies()) {
        expect(by.ToolArtifact.is(artifact), `${checker} on an artifact of ${maker}`).toBe(true);
        expect(artifact instanceof by.ToolArtifact).toBe(true);
        expect(by.WriteTarget.is(target), `${checker} on a target of ${maker}`).toBe(true);
        expect(target instanceof by.WriteTarget).toBe(true);
        expect(by.ToolArtifact.is(target)).toBe(false);
        expect(by.WriteTarget.is(artifact)).toBe(false);
        expect(by.ToolArtifact.is(Object.create(by.ToolArtifact.prototype))).toBe(false);
        expect(by.WriteTarget.is(Object.create(from.WriteTarget.prototype))).toBe(false);
        // a result is fail-closed: it carries only artifacts and targets its own copy made
        if (by !== from) {
          expect(() => by.ToolResult.text('x', artifact)).toThrow(/must be a ToolArtifact made by its factories/);
          expect(() => by.ToolResult.written('x', target)).toThrow(/must be a WriteTarget made by its factories/);
        }
      }
    }
  });

  it('the vm copy bounds channels like this one', () => {
    const text = `${'é'.repeat(100)}😀\uD800`;
    const there = realm?.core.ToolResult.text(text).withBoundedChannels({ contentBytes: 101 });
    expect(there?.content).toBe(here.ToolResult.text(text).withBoundedChannels({ contentBytes: 101 }).content);
  });
});
