import type { ToolArtifact } from './ToolArtifact.js';

/** The deepest nesting an artifact's data may have. */
const MAX_DEPTH = 64;

/**
 * The JSON of a list of artifacts, or the reason it cannot be made.
 *
 * @internal
 */
export type ArtifactEncoding = { readonly ok: true; readonly json: string } | { readonly ok: false; readonly reason: string };

/**
 * Encodes artifacts as JSON, refusing what JSON would silently lose or cannot hold: a cycle, a
 * BigInt, a non-finite number, nesting deeper than 64. Linear in the size of the data.
 *
 * @internal
 */
export function encodeArtifacts(artifacts: readonly ToolArtifact[]): ArtifactEncoding {
  for (let index = 0; index < artifacts.length; index++) {
    const artifact = artifacts[index] as ToolArtifact;
    const problem = findUnencodable(artifact.data, 0, new Set());
    if (problem !== null) {
      return { ok: false, reason: `artifact ${index + 1} ("${clip(artifact.label)}") cannot be encoded: ${describe(problem)}` };
    }
  }
  try {
    return { ok: true, json: JSON.stringify(artifacts.map((artifact) => artifact.toJSON())) };
  } catch (error) {
    return { ok: false, reason: `the artifacts cannot be encoded as JSON: ${error instanceof Error ? error.message : String(error)}` };
  }
}

interface Problem {
  readonly what: string;
  /** Path segments from the problem up to the root, in reverse order. */
  readonly reversePath: string[];
}

function describe(problem: Problem): string {
  return `${problem.what} at $.data${problem.reversePath.reverse().join('')}`;
}

function findUnencodable(value: unknown, depth: number, ancestors: Set<object>): Problem | null {
  switch (typeof value) {
    case 'bigint':
      return { what: 'BigInt', reversePath: [] };
    case 'number':
      return Number.isFinite(value) ? null : { what: `non-finite number ${String(value)}`, reversePath: [] };
    case 'object':
      break;
    default:
      return null;
  }
  if (value === null) {
    return null;
  }
  if (depth >= MAX_DEPTH) {
    return { what: `nesting deeper than ${MAX_DEPTH}`, reversePath: [] };
  }
  if (ancestors.has(value)) {
    return { what: 'cycle', reversePath: [] };
  }
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    return null;
  }
  ancestors.add(value);
  try {
    if (Array.isArray(value)) {
      for (let index = 0; index < value.length; index++) {
        const problem = findUnencodable(value[index], depth + 1, ancestors);
        if (problem !== null) {
          problem.reversePath.push(`[${index}]`);
          return problem;
        }
      }
    } else {
      for (const key of Object.keys(value)) {
        const problem = findUnencodable((value as Record<string, unknown>)[key], depth + 1, ancestors);
        if (problem !== null) {
          problem.reversePath.push(`.${key}`);
          return problem;
        }
      }
    }
  } finally {
    ancestors.delete(value);
  }
  return null;
}

function clip(label: string): string {
  return label.length > 60 ? `${label.slice(0, 60)}…` : label;
}
