/**
 * Test files share one module graph per vitest worker (vitest.base.mjs, `isolate: false`): a file
 * that mocks a module (`vi.mock`, `vi.doMock`) must start from a fresh graph, so the modules it
 * imports take the mock and not the real module an earlier file loaded
 * (`vi.hoisted(() => vi.resetModules())`), and must take the mock away again for the files after it
 * (`vi.doUnmock(…)` and `vi.resetModules()` in an `afterAll`), or they would silently run on it.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

const MOCKS = /\bvi\.(?:mock|doMock)\(/;
const FRESH_GRAPH = /vi\.hoisted\(\(\)\s*=>\s*vi\.resetModules\(\)\)/;
const UNMOCK_AFTER = /afterAll\([\s\S]*vi\.doUnmock\([\s\S]*vi\.resetModules\(\)/;

/** The problems of the given test files (paths relative to `root`, `file:line: …`). */
export function moduleMockProblems(files: readonly string[], root: string): string[] {
  const problems: string[] = [];
  for (const file of files) {
    if (!/\.test\.ts$/.test(file)) continue;
    const text = readFileSync(file, 'utf8');
    const mock = MOCKS.exec(text);
    if (mock === null) continue;
    const line = text.slice(0, mock.index).split('\n').length;
    const where = `${path.relative(root, file)}:${line}`;
    if (!FRESH_GRAPH.test(text))
      problems.push(
        `${where}: mocks a module in a shared module graph without starting a fresh one: add vi.hoisted(() => vi.resetModules())`,
      );
    if (!UNMOCK_AFTER.test(text))
      problems.push(
        `${where}: mocks a module without taking the mock away for the next files: afterAll(() => { vi.doUnmock(…); vi.resetModules(); })`,
      );
  }
  return problems;
}
