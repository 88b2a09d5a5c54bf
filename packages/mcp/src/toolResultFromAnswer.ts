import { ToolArtifact, ToolResult } from '@runledger/core';
import { answeredFailureCause } from './failureCauseOf.js';
import type { WireAnswer, WireContentBlock } from './sdk.js';

/** The label of the artifact that keeps an answer's `structuredContent`. */
export const STRUCTURED_CONTENT_LABEL = 'Structured content';
const NAMED_BLOCKS = 5;

/**
 * Turns a server's answer into a ToolResult: `ok`, or `failed` when the answer says `isError`
 * (cause `server_error`; `invalid_arguments` for an MCP SDK's refusal of the arguments;
 * `tool_not_found` for SDK 1.x's `MCP error -32602: Tool X not found` answer).
 *
 * @remarks
 * Text blocks are joined with a newline as the content. Other blocks (image, audio, resource,
 * resource link, unknown kinds) are not sent to the model; a short note leading the content
 * counts and names them. `structuredContent` of an ok answer is kept as a run-only artifact: a
 * table for an object or an array of objects, else its JSON as text. The result is not yet
 * bounded; the caller passes it through `withBoundedChannels()`.
 */
export function toolResultFromAnswer(answer: WireAnswer): ToolResult {
  const content = Array.isArray(answer.content) ? contentOf(answer.content as readonly WireContentBlock[]) : '';
  if (answer.isError === true) {
    return ToolResult.failure(content === '' ? 'The tool reported an error without a message.' : content, answeredFailureCause(content), {
      serverIsError: true,
    });
  }
  const artifact = structuredArtifact(answer.structuredContent);
  return artifact === undefined ? ToolResult.text(content) : ToolResult.text(content, artifact);
}

/** The text blocks joined with a newline, led by a note on the other blocks when there are any. */
function contentOf(blocks: readonly WireContentBlock[]): string {
  // Most answers are one text block: its text is the content as it is.
  const only = blocks.length === 1 ? blocks[0] : undefined;
  if (only !== undefined && only.type === 'text' && typeof only.text === 'string') {
    return only.text;
  }
  const texts: string[] = [];
  const others: string[] = [];
  for (const block of blocks) {
    if (block.type === 'text' && typeof block.text === 'string') {
      texts.push(block.text);
    } else {
      others.push(describeBlock(block));
    }
  }
  const note = others.length === 0 ? '' : nonTextNote(others);
  const body = texts.join('\n');
  return note === '' ? body : body === '' ? note : `${note}\n${body}`;
}

function describeBlock(block: WireContentBlock): string {
  const type = typeof block.type === 'string' && block.type !== '' ? block.type : 'unknown';
  let detail: unknown;
  switch (type) {
    case 'image':
    case 'audio':
      detail = block.mimeType;
      break;
    case 'resource':
      detail = block.resource?.uri;
      break;
    case 'resource_link':
      detail = block.uri ?? block.name;
      break;
    default:
      detail = undefined;
  }
  return typeof detail === 'string' && detail !== '' ? `${type} ${clip(detail)}` : type;
}

function nonTextNote(blocks: readonly string[]): string {
  const named = blocks.slice(0, NAMED_BLOCKS).join(', ');
  const more = blocks.length > NAMED_BLOCKS ? ` and ${blocks.length - NAMED_BLOCKS} more` : '';
  const count = blocks.length === 1 ? '1 non-text block' : `${blocks.length} non-text blocks`;
  return `[${count} not shown: ${named}${more}]`;
}

function structuredArtifact(value: unknown): ToolArtifact | undefined {
  if (value === undefined || value === null) return undefined;
  if (Array.isArray(value) && value.length > 0 && value.every(isPlainObject)) {
    return ToolArtifact.table(STRUCTURED_CONTENT_LABEL, value as Record<string, unknown>[]);
  }
  if (isPlainObject(value)) {
    return ToolArtifact.table(STRUCTURED_CONTENT_LABEL, [value]);
  }
  return ToolArtifact.text(STRUCTURED_CONTENT_LABEL, JSON.stringify(value) ?? String(value));
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function clip(text: string): string {
  const oneLine = text.replace(/[\u0000-\u001f\u007f]+/g, ' ');
  return oneLine.length > 80 ? `${oneLine.slice(0, 79)}…` : oneLine;
}
