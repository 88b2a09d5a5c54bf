/**
 * pnpm api:diff [--base <ref>] [--committed]
 *
 * For each published package and each of its frozen surfaces (the API report; for a package with
 * a bin, the CLI surface report too): compares the report committed at the base with a freshly
 * generated one (API Extractor on the built dist/index.d.ts, the built dist/cli-surface.js; with
 * --committed, the working-tree report file instead) and prints identical / additive / breaking, the removed, changed and
 * added entries, and what to do. Exit code: 0 (informational; the gate is `pnpm api:gate`).
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { formatClassification } from './lib/classifier/formatClassification.ts';
import { compareReports } from './lib/compareReports.ts';
import { extractPackage } from './lib/extract.ts';
import { freshCliSurface } from './lib/cliSurface.ts';
import { resolveBase, revParse } from './lib/git.ts';
import { requiredBump } from './lib/changesets.ts';
import { WORKSPACE_ROOT } from './lib/workspace.ts';

/**
 * One sentence on what to do.
 */
function advice(name: string, version: string, level: 'identical' | 'additive' | 'breaking', initial: boolean) {
  if (initial) return `First report of ${name}: no changeset is required for the initial surface; commit the report.`;
  const bump = requiredBump(level, version);
  const zero = version.startsWith('0.') ? ` (${name} is ${version}: 0.x shifts semver down one place)` : '';
  if (level === 'identical')
    return 'Nothing to release: the public surface is unchanged (reformatting or @internal-only edits); commit the report, no changeset needed.';
  if (level === 'additive')
    return `Run "pnpm changeset" and bump ${name} at least "${bump}"${zero}; reviewers of api-reports/ must approve the new surface.`;
  return `This breaks existing callers: avoid it if you can (add beside, deprecate, remove later); otherwise run "pnpm changeset", bump ${name} "${bump}"${zero} and describe the migration.`;
}

function main(argv: string[]) {
  let baseRef;
  let committed = false;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--base') baseRef = argv[++i];
    else if (argv[i] === '--committed') committed = true;
    else if (argv[i] === '--help' || argv[i] === '-h') {
      console.log('usage: pnpm api:diff [--base <ref>] [--committed]');
      return 0;
    } else {
      console.error(`unknown argument ${argv[i]}`);
      return 2;
    }
  }
  const root = WORKSPACE_ROOT;
  let base;
  if (baseRef) {
    const sha = revParse(baseRef, root);
    if (!sha) {
      console.error(`--base ${baseRef}: not a commit`);
      return 2;
    }
    base = { sha, how: `--base ${baseRef}` };
  } else base = resolveBase(root);
  console.log(`api:diff against ${base.sha ? base.sha.slice(0, 12) : '(nothing)'} — ${base.how}\n`);
  const results = compareReports({
    root,
    baseSha: base.sha,
    current: committed
      ? undefined
      : (pkg, _committedPath, surface) => {
          if (surface.kind === 'cli') {
            const fresh = freshCliSurface(pkg.dir);
            if ('error' in fresh) console.error(`${pkg.name}: ${fresh.error}; CLI surface skipped`);
            return 'text' in fresh ? fresh.text : undefined;
          }
          const types = surface.entry?.types;
          if (!existsSync(path.join(pkg.dir, types ?? path.join('dist', 'index.d.ts')))) {
            console.error(`${surface.label}: not built (run "pnpm build"); skipped`);
            return undefined;
          }
          const r = extractPackage(pkg.dir, types);
          for (const e of r.errors) console.error(`${surface.label}: (${e.id}) ${e.text}`);
          return r.report || undefined;
        },
  });
  for (const r of results) {
    if (r.after === undefined) continue;
    if (!r.classification) {
      console.log(`${r.label}: identical\n  → ${advice(r.pkg.name, r.pkg.version, 'identical', false)}\n`);
      continue;
    }
    const c = r.classification;
    console.log(formatClassification(r.label, c, { advice: advice(r.pkg.name, r.pkg.version, c.level, c.initial) }) + '\n');
  }
  return 0;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) process.exit(main(process.argv.slice(2)));
