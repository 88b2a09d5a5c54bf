import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { apiEntries } from '../src/lib/entries.ts';
import { oldestTypeScript, oldestTypeScriptInstall, typeScriptAlias } from '../src/lib/oldestTypeScript.ts';
import { publishedPackages, WORKSPACE_ROOT } from '../src/lib/workspace.ts';

/** The rows of the oldest-TypeScript table in docs/consuming.md: entries, ESM and CommonJS versions. */
function documentedRows() {
  const doc = readFileSync(path.join(WORKSPACE_ROOT, 'docs', 'consuming.md'), 'utf8');
  return doc
    .split('\n')
    .filter((line) => /^\| `@runledger\//.test(line) && /\(\d+\.\d+\.\d+\)/.test(line))
    .map((line) => {
      const cells = line.split('|').map((c) => c.trim());
      const version = (cell: string | undefined) => /\((\d+\.\d+\.\d+)\)/.exec(cell ?? '')?.[1];
      return {
        entries: [...(cells[1] ?? '').matchAll(/`(@runledger\/[^`]+)`/g)].map((m) => m[1] ?? ''),
        esm: version(cells[2]),
        cjs: version(cells[3]),
      };
    });
}

describe('the oldest TypeScript of each entry', () => {
  const entries = publishedPackages().flatMap((p) => apiEntries(p).map((e) => e.specifier));

  it('docs/consuming.md names, for every published entry point, the versions the pack smoke tests', () => {
    const rows = documentedRows();
    expect(rows.length).toBeGreaterThan(0);
    const documented = rows.flatMap((r) => r.entries.map((entry) => ({ entry, esm: r.esm, cjs: r.cjs })));
    expect(documented.map((d) => d.entry).sort()).toEqual([...entries].sort());
    for (const d of documented)
      expect(d, d.entry).toEqual({ entry: d.entry, esm: oldestTypeScript(d.entry).esm, cjs: oldestTypeScript(d.entry).cjs });
  });

  it('installs each named version once, pinned exactly, under its own alias', () => {
    const install = oldestTypeScriptInstall(entries);
    const named = new Set(entries.flatMap((e) => [oldestTypeScript(e).esm, oldestTypeScript(e).cjs]));
    expect(install).toEqual(Object.fromEntries([...named].sort().map((v) => [typeScriptAlias(v), `npm:typescript@${v}`])));
    for (const v of named) expect(v).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it("names 5.7 for @runledger/ai-sdk's ESM consumers (ai 6's declarations) and 5.8 for CommonJS", () => {
    expect(oldestTypeScript('@runledger/ai-sdk')).toMatchObject({ esm: '5.7.3', cjs: '5.8.3' });
    expect(oldestTypeScript('@runledger/trace/store')).toMatchObject({ esm: '5.0.4', cjs: '5.8.3' });
  });
});
