/**
 * Run-time import cycles inside one package: modules that reach themselves again through the
 * imports that stay in the JavaScript (`import type` and `export type … from` are erased and do
 * not count; `import()` loads later, after the importer has run, and does not count either). A
 * cycle makes evaluation order decide whether a binding is initialised when it is read.
 */
import path from 'node:path';
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

/** Tarjan's strongly connected components (iterative), each with more than one file or a self-import. */
function cyclicComponents(edges: ReadonlyMap<string, ReadonlyMap<string, number>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const components: string[][] = [];
  let next = 0;
  for (const root of [...edges.keys()].sort()) {
    if (index.has(root)) continue;
    const work: { file: string; targets: Iterator<string> }[] = [];
    const open = (file: string): void => {
      index.set(file, next);
      low.set(file, next);
      next += 1;
      stack.push(file);
      onStack.add(file);
      work.push({ file, targets: (edges.get(file) ?? new Map<string, number>()).keys() });
    };
    open(root);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      const step = frame.targets.next();
      if (!step.done) {
        const target = step.value;
        if (!index.has(target)) open(target);
        else if (onStack.has(target)) low.set(frame.file, Math.min(low.get(frame.file)!, index.get(target)!));
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent !== undefined) low.set(parent.file, Math.min(low.get(parent.file)!, low.get(frame.file)!));
      if (low.get(frame.file) !== index.get(frame.file)) continue;
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== frame.file);
      const selfImport = edges.get(frame.file)?.has(frame.file) === true;
      if (component.length > 1 || selfImport) components.push(component.sort());
    }
  }
  return components;
}

/** The shortest way from `start` back to itself inside `component` (breadth first). */
function cycleThrough(start: string, component: ReadonlySet<string>, edges: ReadonlyMap<string, ReadonlyMap<string, number>>): ImportCycle {
  const cameFrom = new Map<string, string>();
  const queue = [start];
  search: while (queue.length > 0) {
    const file = queue.shift()!;
    for (const target of [...(edges.get(file)?.keys() ?? [])].sort()) {
      if (!component.has(target) || cameFrom.has(target)) continue;
      cameFrom.set(target, file);
      if (target === start) break search;
      queue.push(target);
    }
  }
  const files: string[] = [];
  let file = cameFrom.get(start)!;
  while (file !== start) {
    files.unshift(file);
    file = cameFrom.get(file)!;
  }
  files.unshift(start);
  return files.map((from, i) => ({ file: from, line: edges.get(from)!.get(files[(i + 1) % files.length]!)! }));
}

/** One cycle per group of modules that import each other at run time, starting at the group's first file. */
export function runTimeImportCycles(modules: readonly SourceModule[]): ImportCycle[] {
  const edges = runTimeEdges(modules);
  return cyclicComponents(edges).map((component) => cycleThrough(component[0]!, new Set(component), edges));
}

/** `a.ts:3 → b.ts:7 → a.ts` with paths relative to `root`. */
export function describeCycle(cycle: ImportCycle, root: string): string {
  const name = (file: string): string => path.relative(root, file).split(path.sep).join('/');
  return [...cycle.map((step) => `${name(step.file)}:${step.line}`), name(cycle[0]!.file)].join(' → ');
}
