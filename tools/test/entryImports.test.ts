// A subpath entry that imports the main entry's names by the package's name (as `@runledger/trace/store`
// imports `StoredRun` from `@runledger/trace`): the gate reads them as a consumer does, from another
// module, so the subpath entry need not export them again (lib/writeEntryTsconfig.ts). The closure rule
// still holds: an @internal name of the main entry in a @public signature of the subpath entry fails.
import { afterAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { runGate } from '../src/api-gate.ts';
import { makeWorkspace } from './helpers.js';

const ws = makeWorkspace(['self-entries', 'self-internal']);
afterAll(() => ws.cleanup());
const reports = path.join(ws.root, 'api-reports');
const gate = (name: string) =>
  runGate({
    mode: 'update',
    packageDir: ws.dir(name),
    reportDir: reports,
    deprecationsDoc: path.join(ws.root, 'deprecations.md'),
    allowList: [],
    workspaceRoot: ws.root,
  });

describe('a subpath entry importing the main entry by the package name', () => {
  it('passes, its report importing the name from the main entry instead of declaring it', () => {
    const [main, extra] = gate('self-entries');
    expect(main!.problems).toEqual([]);
    expect(extra!.problems).toEqual([]);
    const report = readFileSync(path.join(reports, 'self-entries-extra.api.md'), 'utf8');
    expect(report).toContain("import type { Shared } from '@fx/self-entries';");
    expect(report).toContain('export function useShared(shared: Shared): string;');
    expect(report).not.toContain('interface Shared');
  });

  it("fails when a public signature mentions the main entry's @internal name, naming both", () => {
    const [main, extra] = gate('self-internal');
    expect(main!.problems).toEqual([]);
    expect(extra!.problems.join('\n')).toMatch(
      /@fx\/self-internal\/extra: \(ae-incompatible-release-tags, across packages\) The symbol "useInternal" is marked as @public, but its signature references "InternalShape" which is marked as @internal/,
    );
  });
});
