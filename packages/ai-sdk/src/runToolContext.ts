// AI SDK 7's tool context (`toolsContext` of generateText / streamText): every tool of a run's
// mcpToolSet declares a context schema whose check adds the run's id to the context the app gives
// for that tool (or to none). ai 7 hands the checked context to `execute`, to a per-tool
// `toolApproval` function and to onToolExecutionStart / onToolExecutionEnd (`toolContext`), so each
// of them sees the run a call is recorded on. ai 6 has no tool context and ignores the schema.
import { jsonSchema } from 'ai';

/** The context of a call of a tool of {@link mcpToolSet} under ai 7: the app's own keys and the run's id. */
export interface RunToolContext {
  readonly runId: string;
  readonly [key: string]: unknown;
}

/** How a value reads in a message: its JSON when it has one, else its type. */
function shown(value: unknown): string {
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value);
  return typeof value === 'object' ? 'an object' : String(value);
}

/**
 * The context schema of `toolName` on the run `runId`: an absent context becomes `{ runId }`, an
 * object gains `runId`; one naming another run, or a context that is no object, fails the check
 * (ai 7 then rejects the loop with a `TypeValidationError` whose cause names the field, before the
 * call is sent).
 */
export function runToolContextSchema(toolName: string, runId: string) {
  return jsonSchema<RunToolContext>(
    { type: 'object', properties: { runId: { type: 'string' } } },
    {
      validate: (value) => {
        if (value === undefined || value === null) return { success: true, value: { runId } };
        if (typeof value !== 'object' || Array.isArray(value)) {
          return { success: false, error: new TypeError(`toolsContext.${toolName} must be an object or absent, got ${shown(value)}`) };
        }
        const given = (value as { runId?: unknown }).runId;
        if (given !== undefined && given !== runId) {
          return {
            success: false,
            error: new TypeError(
              `toolsContext.${toolName}.runId must be absent or the id of the run the tool set records on ("${runId}"), got ${shown(given)}`,
            ),
          };
        }
        return { success: true, value: { ...(value as Record<string, unknown>), runId } };
      },
    },
  );
}
