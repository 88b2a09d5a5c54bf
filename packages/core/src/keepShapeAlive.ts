/** The instances kept for the life of the process; never read. */
const SURVIVORS: object[] = [];

/**
 * Keeps one instance of a class alive for the life of the process, so that V8 keeps its hidden
 * classes (the chain of maps its constructor builds, up to the frozen one).
 *
 * @remarks
 * V8 holds the maps a constructor transitions through only weakly. When every instance of a class
 * has died by a full garbage collection, the maps go with them: the next `new` rebuilds each one
 * on the slow path (several microseconds), and optimized code that embedded them is thrown away
 * and has to warm up again. Results and artifacts are short-lived (made, bounded, handed on) and
 * an agent waiting on a model is exactly the idle process V8 runs full collections in, so without
 * a survivor the first calls after every such collection pay for it. One small frozen instance
 * per class is the whole cost.
 *
 * @internal
 */
export function keepShapeAlive<T extends object>(instance: T): T {
  SURVIVORS.push(instance);
  return instance;
}
