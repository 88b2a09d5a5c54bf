// The folders of src/ form layers (docs/architecture.md, "Inside @runledger/trace"): a folder
// imports only from its own files and from lower layers, never from a folder of its own layer or
// a higher one. Read from the sources' import lines, so a new import against the layers fails here.
// Run-time import cycles (in every package) are `pnpm lint:code`'s (tools/src/lint-sources.ts).
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/** The layers, lowest first; the folders of one layer do not import each other. */
export const TRACE_LAYERS: readonly (readonly string[])[] = [
  ['text'],
  ['step'],
  ['privacy', 'health'],
  ['store'],
  ['timeline', 'spool'],
  ['recording'],
];

const SRC = fileURLToPath(new URL('../src/', import.meta.url));

/** One relative import (or re-export) of a source file, types too: a type import against the layers breaks them as well. */
interface SourceImport {
  readonly from: string;
  readonly to: string;
}

/** `import … from './x.js'`, `export … from '../y.js'`, `import './z.js'`: the path. */
const IMPORT = /^(?:import|export)\s+(?:[\s\S]*?\s+from\s+)?'(\.{1,2}\/[^']+)';/gm;

/** Every non-test source file under src/, relative to it, `/`-separated. */
function sourceFiles(dir = SRC): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    if (!entry.name.endsWith('.ts') || /\.test(-d)?\.ts$/.test(entry.name)) return [];
    return [path.relative(SRC, full).split(path.sep).join('/')];
  });
}

/** The relative imports of the given source text of `file`. */
export function importsOf(file: string, text: string): SourceImport[] {
  return [...text.matchAll(IMPORT)].map((match) => ({
    from: file,
    to: path.posix.normalize(path.posix.join(path.posix.dirname(file), match[1]!)).replace(/\.js$/, '.ts'),
  }));
}

/** The folder a file belongs to ('' for the entry at src/). */
const folderOf = (file: string): string => (file.includes('/') ? file.slice(0, file.indexOf('/')) : '');

/** The layer index of a folder, or undefined for one the table does not place. */
function layerOf(folder: string, layers: readonly (readonly string[])[]): number | undefined {
  const index = layers.findIndex((layer) => layer.includes(folder));
  return index === -1 ? undefined : index;
}

/** What breaks the layers: an import of a folder of the same or a higher layer, or an unplaced folder. */
export function layerViolations(imports: readonly SourceImport[], layers: readonly (readonly string[])[]): string[] {
  const problems: string[] = [];
  for (const { from, to } of imports) {
    const source = folderOf(from);
    const target = folderOf(to);
    // the entry points (src/index.ts, and src/store/index.ts into lower layers) gather every layer
    if (source === '' || source === target) continue;
    const sourceLayer = layerOf(source, layers);
    const targetLayer = layerOf(target, layers);
    if (sourceLayer === undefined) problems.push(`${from}: folder ${source}/ is in no layer`);
    else if (targetLayer === undefined) problems.push(`${from} imports ${to}: folder ${target}/ is in no layer`);
    else if (targetLayer >= sourceLayer) problems.push(`${from} imports ${to}: ${target}/ is not in a lower layer than ${source}/`);
  }
  return problems;
}

const files = sourceFiles();
const imports = files.flatMap((file) => importsOf(file, readFileSync(path.join(SRC, file), 'utf8')));

describe('the folders of @runledger/trace form layers', () => {
  it('reads the imports of every source folder (the reader sees what it checks)', () => {
    expect(files).toContain('index.ts');
    expect(new Set(files.map(folderOf))).toEqual(new Set(['', ...TRACE_LAYERS.flat()]));
    expect(imports.some((i) => i.from === 'recording/startRun.ts' && i.to === 'store/RunStore.ts')).toBe(true);
    expect(imports.some((i) => i.from === 'recording/startRun.ts' && i.to === 'step/RunStatus.ts')).toBe(true);
  });

  it('each folder imports only from lower layers', () => {
    expect(layerViolations(imports, TRACE_LAYERS)).toEqual([]);
  });

  it('the check fails on an upward import and on a sideways one', () => {
    const upward = importsOf('step/RunStep.ts', "import { RunStoreError } from '../store/RunStoreError.js';");
    expect(layerViolations(upward, TRACE_LAYERS)).toEqual([
      'step/RunStep.ts imports store/RunStoreError.ts: store/ is not in a lower layer than step/',
    ]);
    const sideways = importsOf('health/x.ts', "import type { A } from '../privacy/a.js';");
    expect(layerViolations(sideways, TRACE_LAYERS)).toHaveLength(1);
  });
});
