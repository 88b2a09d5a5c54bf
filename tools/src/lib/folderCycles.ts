/**
 * Folder-level import cycles inside one package: sibling folders (src/app, src/views, …) whose
 * modules reach a folder that reaches them back through run-time imports, even when no single
 * module is part of a file-level cycle. Sibling folders are layers: an acyclic graph of them says
 * which one sits above which. An import from src/app/x/a.ts of src/views/b.ts is an edge src/app →
 * src/views (the two folders under the nearest folder that holds both); an import between a folder
 * and a folder that holds it (src/health/a.ts of src/b.ts) is none: a folder's own files are the
 * ground its subfolders stand on, and their user. Only run-time imports count (`import type` is
 * erased, `import()` loads later), and only the package's own modules, tests left out: a test sits
 * above everything it tests.
 */
import path from 'node:path';
import { graphCycles } from './graphCycles.ts';
import { resolveRelativeImport, type SourceModule } from './sourceModules.ts';

/** One step of a folder cycle: `folder` imports the next folder of the cycle, first at `file`:`line`. */
export interface FolderCycleStep {
  readonly folder: string;
  readonly file: string;
  readonly line: number;
}

/** The folders of one strongly connected component, walked once around: the last step imports the first folder. */
export type FolderCycle = readonly FolderCycleStep[];

const TEST_FILE = /\.test(?:-d)?\.[cm]?[jt]s$/;

/** The two sibling folders an import from folder `from` of folder `to` joins, or undefined when one holds the other. */
function siblings(from: string, to: string): readonly [string, string] | undefined {
  const a = from.split(path.sep);
  const b = to.split(path.sep);
  let common = 0;
  while (common < a.length && common < b.length && a[common] === b[common]) common += 1;
  if (common === a.length || common === b.length) return undefined;
  return [a.slice(0, common + 1).join(path.sep), b.slice(0, common + 1).join(path.sep)];
}

/** Run-time edges between sibling folders of the given modules: folder → (imported folder → the first import of it). */
function folderEdges(modules: readonly SourceModule[]): Map<string, Map<string, { file: string; line: number }>> {
  const code = modules.filter((m) => !TEST_FILE.test(m.file));
  const known = new Set(code.map((m) => m.file));
  const edges = new Map<string, Map<string, { file: string; line: number }>>();
  for (const module of code) {
    for (const { specifier, line, runTime } of module.imports) {
      if (!runTime) continue;
      const target = resolveRelativeImport(module.file, specifier);
      if (target === undefined || !known.has(target)) continue;
      const pair = siblings(path.dirname(module.file), path.dirname(target));
      if (pair === undefined) continue;
      const targets = edges.get(pair[0]) ?? new Map<string, { file: string; line: number }>();
      edges.set(pair[0], targets);
      if (!targets.has(pair[1])) targets.set(pair[1], { file: module.file, line });
    }
  }
  return edges;
}

/** One cycle per group of folders that import each other at run time, starting at the group's first folder. */
export function folderImportCycles(modules: readonly SourceModule[]): FolderCycle[] {
  // modules in file order, so the import named for an edge is the first of the first file
  const edges = folderEdges([...modules].sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0)));
  return graphCycles(edges).map((folders) =>
    folders.map((folder, i) => ({ folder, ...edges.get(folder)!.get(folders[(i + 1) % folders.length]!)! })),
  );
}

/** `src/app → src/views → src/app (src/app/a.ts:3 imports src/views; src/views/b.ts:7 imports src/app)`, paths relative to `root`. */
export function describeFolderCycle(cycle: FolderCycle, root: string): string {
  const name = (file: string): string => path.relative(root, file).split(path.sep).join('/') || '.';
  const walk = [...cycle.map((step) => name(step.folder)), name(cycle[0]!.folder)].join(' → ');
  const via = cycle.map((step, i) => `${name(step.file)}:${step.line} imports ${name(cycle[(i + 1) % cycle.length]!.folder)}`);
  return `${walk} (${via.join('; ')})`;
}
