import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync, existsSync, readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runChangesetGate } from '../src/changeset-gate.ts';

export const TOOLS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const ROOT = path.resolve(TOOLS, '..');
const FIXTURES = path.join(TOOLS, 'test', 'fixtures', 'packages');

/**
 * Lays out fixture packages as a tiny workspace under tools/temp (inside the repo, so the
 * tools' node_modules resolve): packages/<name>/dist/index.d.ts (and the fixture's other
 * types/<subpath>/index.d.ts), tsconfig.json and an
 * api-extractor.json extending the real api-extractor.base.json.
 */
export function makeWorkspace(names: string[]): { root: string; dir: (name: string) => string; cleanup: () => void } {
  mkdirSync(path.join(TOOLS, 'temp'), { recursive: true });
  const root = mkdtempSync(path.join(TOOLS, 'temp', 'ws-'));
  const dir = (name: string) => path.join(root, 'packages', name);
  for (const name of names) {
    const d = dir(name);
    mkdirSync(path.join(d, 'dist'), { recursive: true });
    cpSync(path.join(FIXTURES, name, 'package.json'), path.join(d, 'package.json'));
    // types/ becomes dist/: index.d.ts, and <subpath>/index.d.ts for a package with subpath entries
    cpSync(path.join(FIXTURES, name, 'types'), path.join(d, 'dist'), { recursive: true });
    writeFileSync(path.join(d, 'dist', 'index.js'), 'export {};\n');
    writeFileSync(
      path.join(d, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'es2022',
          module: 'nodenext',
          moduleResolution: 'nodenext',
          strict: true,
          skipLibCheck: true,
          types: [],
          noEmit: true,
        },
        include: ['dist/**/*.d.ts'],
      }),
    );
    writeFileSync(
      path.join(d, 'api-extractor.json'),
      JSON.stringify({ extends: path.join(ROOT, 'api-extractor.base.json'), projectFolder: '.' }),
    );
  }
  // Workspace links: a dependency "workspace:*" on a sibling becomes node_modules/<name> -> sibling.
  for (const name of names) {
    const json = JSON.parse(readFileSync(path.join(dir(name), 'package.json'), 'utf8'));
    for (const [dep, spec] of Object.entries<string>(json.dependencies ?? {})) {
      if (!spec.startsWith('workspace:')) continue;
      const target = names.map(dir).find((d) => JSON.parse(readFileSync(path.join(d, 'package.json'), 'utf8')).name === dep);
      if (!target) continue;
      const link = path.join(dir(name), 'node_modules', dep);
      mkdirSync(path.dirname(link), { recursive: true });
      if (!existsSync(link)) symlinkSync(target, link, 'dir');
    }
  }
  mkdirSync(path.join(root, 'api-reports'), { recursive: true });
  return { root, dir, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}

/**
 * Lays out one throwaway package under tools/temp from a map of file paths to contents
 * (package.json included), for tests that pack it. Folders are made as needed.
 */
export function makePackage(files: Record<string, string>): { dir: string; cleanup: () => void } {
  mkdirSync(path.join(TOOLS, 'temp'), { recursive: true });
  const dir = mkdtempSync(path.join(TOOLS, 'temp', 'pkg-'));
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), text);
  }
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * A throwaway git repository for the gate's tests: `files` (path → text, folders made as needed)
 * committed as "base" on main; `changeset` writes a one-package changeset, `commit` commits all,
 * `gate` runs api:gate (default base: that first commit; `{}` as a clean clone: HEAD~1 and the
 * history). Remove it with `cleanup`.
 */
export function gateRepo(files: Record<string, string>) {
  const root = mkdtempSync(path.join(os.tmpdir(), 'api-gate-repo-'));
  const git = (...args: string[]) => execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
  const write = (file: string, text: string) => {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), text);
  };
  git('init', '-q', '-b', 'main');
  git('config', 'user.email', 't@example.com');
  git('config', 'user.name', 't');
  for (const [file, text] of Object.entries({ '.changeset/README.md': '# Changesets\n', ...files })) write(file, text);
  mkdirSync(path.join(root, 'api-reports'), { recursive: true });
  const commit = (msg: string) => {
    git('add', '-A');
    git('commit', '-q', '-m', msg);
  };
  commit('base');
  const base = git('rev-parse', 'HEAD');
  return {
    root,
    base,
    write,
    changeset: (file: string, bump: string, pkg: string) => write(`.changeset/${file}`, `---\n"${pkg}": ${bump}\n---\n\nA change.\n`),
    commit,
    gate: (env: Record<string, string> = { API_GATE_BASE: base }) => runChangesetGate({ root, env }),
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}
