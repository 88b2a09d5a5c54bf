/**
 * Cycles of a directed graph given as node → (target → anything): the strongly connected
 * components that hold more than one node or a node with an edge to itself, each walked once
 * around. The file-level and folder-level import cycles of lint-sources.ts are both read with it.
 */

/** Tarjan's strongly connected components (iterative), each with more than one node or a node with an edge to itself. */
function cyclicComponents(edges: ReadonlyMap<string, ReadonlyMap<string, unknown>>): string[][] {
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
      work.push({ file, targets: (edges.get(file) ?? new Map<string, unknown>()).keys() });
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
function cycleThrough(start: string, component: ReadonlySet<string>, edges: ReadonlyMap<string, ReadonlyMap<string, unknown>>): string[] {
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
  return files;
}

/**
 * One cycle per strongly connected component (more than one node, or a node with an edge to
 * itself): the shortest way from the component's first node (sorted) back to it, as the nodes
 * walked; the last node has an edge to the first.
 */
export function graphCycles(edges: ReadonlyMap<string, ReadonlyMap<string, unknown>>): string[][] {
  return cyclicComponents(edges).map((component) => cycleThrough(component[0]!, new Set(component), edges));
}
