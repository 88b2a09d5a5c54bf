/**
 * Run-time import cycles inside one package: modules that reach themselves again through the
 * imports that stay in the JavaScript (`import type` and `export type … from` are erased and do
 * not count; `import()` loads later, after the importer has run, and does not count either). A
 * cycle makes evaluation order decide whether a binding is initialised when it is read.
 */
import path from 'node:path';
import { graphCycles } from './graphCycles.ts';
import { resolveRelativeImport, type SourceModule } from './sourceModules.ts';

/** One step of a cycle: `file` imports the next file of the cycle at `line`. */
export interface CycleStep {
  readonly file: string;
  readonly line: number;
}

/** The modules of one strongly connected component, walked once around: the last step imports the first file. */
export type ImportCycle = readonly CycleStep[];

/** Run-time edges between the given modules: file → (imported file → line of the first import of it). */
function runTimeEdges(modules: readonly SourceModule[]): Map<string, Map<string, number>> {
  const known = new Set(modules.map((m) => m.file));
  const edges = new Map<string, Map<string, number>>();
  for (const module of modules) {
    const targets = new Map<string, number>();
    for (const { specifier, line, runTime } of module.imports) {
      if (!runTime) continue;
      const target = resolveRelativeImport(module.file, specifier);
      if (target !== undefined && known.has(target) && !targets.has(target)) targets.set(target, line);
    }
    edges.set(module.file, targets);
  }
  return edges;
}

/** One cycle per group of modules that import each other at run time, starting at the group's first file. */
export function runTimeImportCycles(modules: readonly SourceModule[]): ImportCycle[] {
  const edges = runTimeEdges(modules);
  return graphCycles(edges).map((files) =>
    files.map((from, i) => ({ file: from, line: edges.get(from)!.get(files[(i + 1) % files.length]!)! })),
  );
}

/** `a.ts:3 → b.ts:7 → a.ts` with paths relative to `root`. */
export function describeCycle(cycle: ImportCycle, root: string): string {
  const name = (file: string): string => path.relative(root, file).split(path.sep).join('/');
  return [...cycle.map((step) => `${name(step.file)}:${step.line}`), name(cycle[0]!.file)].join(' → ');
}
