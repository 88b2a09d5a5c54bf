// Its own module: the public declarations of the main entry must not load RunStepSchema's, which
// import zod's (whose declarations need TypeScript 5.4+, over the 5.0 docs/consuming.md names).
import { RUN_STEP_CONTENT } from './RunStepSchema.js';

/**
 * The payload keys of a step that hold content (prompts, answers, tool arguments and results),
 * in payload order: what the privacy filter replaces by sizes at `metadata`, and what never
 * reaches the timeline.
 *
 * @public
 */
export const RUN_STEP_CONTENT_KEYS: readonly string[] = Object.freeze([...RUN_STEP_CONTENT.keys()]);
