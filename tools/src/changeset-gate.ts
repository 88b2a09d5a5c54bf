/**
 * pnpm api:gate — every package whose API report or CLI surface report changed since the base
 * needs a pending changeset that bumps it at least as far as the change requires:
 *   breaking → major (minor while 0.x), additive → minor (patch while 0.x), identical → nothing.
 *
 * Base: API_GATE_BASE, else the merge base with origin/main, else HEAD~1, else none (see
 * lib/git.ts). A package whose last published release is newer than that base (its tag
 * `@runledger/core@0.3.0`, or the registry's version passed as API_GATE_RELEASED by release.ts;
 * lib/releases.ts) is judged against that release instead: after releases made in a clone whose
 * origin/main never moved, an earlier release's version raise must not cover a later change.
 * The current reports are the working-tree files, kept fresh by `api:check`.
 * Changesets counted: those pending in the working tree (.changeset/*.md) that were not there at
 * the base — a change brings its own changeset; one that was already pending before it (still
 * waiting for a release) does not cover it, so a stale patch changeset cannot wave through later
 * changes. Keep a report change and its changeset in the same commit. A version already raised in
 * package.json since the base (a release commit) counts too. A report absent at the base is an
 * initial surface.
 *
 * History: every mainline commit up to the base that changed a report is judged the same way,
 * against its first parent, with the changesets it added itself (lib/history.ts). So a report
 * change that landed without its changeset fails the gate whatever came after it, even where
 * the base is only HEAD~1 (a clean clone in CI).
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { formatClassification } from './lib/classifier/formatClassification.ts';
import { compareReports } from './lib/compareReports.ts';
import { coverage, readChangesets, versionBump } from './lib/changesets.ts';
import { listFiles, resolveBase, showFile } from './lib/git.ts';
import { checkReportHistory } from './lib/history.ts';
import { lastRelease, packageBase, parseReleased, RELEASED_ENV } from './lib/releases.ts';
import { parseDeprecationTable } from './lib/checks.ts';
import { WORKSPACE_ROOT, workspacePackages, publishedPackages } from './lib/workspace.ts';
import type { Changeset } from './lib/changesets.ts';
export function runChangesetGate(opts: { root?: string; env?: NodeJS.ProcessEnv } = {}): {
  ok: boolean;
  lines: string[];
  problems: string[];
} {
  const root = opts.root ?? WORKSPACE_ROOT;
  const env = opts.env ?? process.env;
  const lines = [];
  const problems = [];
  const base = resolveBase(root, env);
  lines.push(`api:gate against ${base.sha ? base.sha.slice(0, 12) : '(nothing)'} — ${base.how}`);

  // each package since its last published release when that is newer than the base
  let registryVersions: Map<string, string> | undefined;
  try {
    registryVersions = env[RELEASED_ENV] === undefined ? undefined : parseReleased(env[RELEASED_ENV]);
  } catch (e) {
    problems.push((e as Error).message);
  }
  const bases = new Map(
    publishedPackages(root).map((pkg) => {
      const release = lastRelease(pkg, root, registryVersions?.get(pkg.name));
      const judged = packageBase(base.sha, release, root);
      if (judged.release) lines.push(`${pkg.name}: judged since its release ${judged.release.version} (${judged.release.how})`);
      return [pkg.name, judged] as const;
    }),
  );
  const baseOf = (pkg: { name: string }) => (bases.has(pkg.name) ? bases.get(pkg.name)?.sha : base.sha);

  let changesets: Changeset[] = [];
  try {
    changesets = readChangesets(path.join(root, '.changeset'));
  } catch (e) {
    problems.push((e as Error).message);
  }
  const changesetsAt: Map<string | undefined, Set<string>> = new Map();
  const pendingAt = (sha: string | undefined) => {
    let files = changesetsAt.get(sha);
    if (!files) changesetsAt.set(sha, (files = new Set(sha ? listFiles(sha, '.changeset', root) : [])));
    return files;
  };
  const known = workspacePackages(root);
  const published = new Set(publishedPackages(root).map((pkg) => pkg.name));
  for (const cs of changesets) {
    for (const name of cs.releases.keys()) {
      if (!known.has(name)) problems.push(`${cs.file} names "${name}", which is not a package of this workspace`);
    }
    // `changeset version` refuses a changeset that names released and never-released packages alike
    const unreleased = [...cs.releases.keys()].filter((name) => known.has(name) && !published.has(name));
    if (unreleased.length > 0 && unreleased.length < cs.releases.size)
      problems.push(
        `${cs.file} names ${unreleased.map((name) => `"${name}"`).join(', ')}, which is never released (private or ignored in .changeset/config.json), beside released packages: "changeset version" refuses such a changeset. Leave the unreleased package out`,
      );
  }

  for (const r of compareReports({ root, baseSha: base.sha, baseOf })) {
    const { pkg, label } = r;
    const pkgBase = baseOf(pkg);
    const release = bases.get(pkg.name)?.release;
    const since = release ? `since its release ${release.version}` : 'since the base';
    const atBase = pendingAt(pkgBase);
    if (r.after === undefined) {
      problems.push(`${label}: ${r.reportPath} is missing; run "pnpm build && pnpm api:update" and commit it`);
      continue;
    }
    if (!r.classification) {
      lines.push(`${label}: report unchanged`);
      continue;
    }
    const c = r.classification;
    if (c.initial) {
      lines.push(`${label}: initial surface (${r.reportPath} did not exist at the base) — no changeset required`);
      continue;
    }
    const all = changesets.filter((cs) => cs.releases.has(pkg.name));
    const baseJson = pkgBase
      ? showFile(pkgBase, `${path.relative(root, pkg.dir).split(path.sep).join('/')}/package.json`, root)
      : undefined;
    const released = versionBump(baseJson ? JSON.parse(baseJson).version : undefined, pkg.version);
    const counted = all.filter((cs) => !atBase.has(cs.file));
    const { need, covered } = coverage({ name: pkg.name, level: c.level, version: pkg.version, counted, released });
    const found = [
      ...all.map(
        (cs) =>
          `${cs.file} → ${cs.releases.get(pkg.name)}${atBase.has(cs.file) ? ` (already pending ${release ? `at its release ${release.version}` : 'at the base'}: not counted)` : ''}`,
      ),
      ...(released !== 'none' ? [`package.json version raised ${since} → ${released}`] : []),
    ];
    const foundText = found.length ? found.join(', ') : 'no changeset for this package';
    if (covered) {
      lines.push(`${label}: ${c.level} — needs ${need}, covered by ${foundText}`);
      continue;
    }
    problems.push(
      `${label}: ${c.level} change to ${r.reportPath} needs a changeset bumping it at least "${need}"${pkg.version.startsWith('0.') ? ` (0.x: ${c.level === 'breaking' ? 'breaking → minor' : 'additive → patch'})` : ''}; found: ${foundText}. Run "pnpm changeset".\n` +
        formatClassification(label, c, { limit: 10 }),
    );
  }

  if (base.sha) {
    const history = checkReportHistory({ root, until: base.sha, packages: publishedPackages(root) });
    if (history.judged) {
      lines.push(
        `history up to the base: ${history.commits} commit${history.commits === 1 ? '' : 's'} changed a report; ${history.problems.length === 0 ? 'each brought its own changeset' : `${history.problems.length} problem${history.problems.length === 1 ? '' : 's'}`}`,
        ...history.lines.map((line) => `  ${line}`),
      );
    } else {
      lines.push(...history.lines);
    }
    problems.push(...history.problems);
  }

  // docs/deprecations.md rows must name published packages (rows of a package are checked by its api:check).
  const docPath = path.join(root, 'docs', 'deprecations.md');
  if (existsSync(docPath)) {
    const names = new Set(publishedPackages(root).map((p) => p.name));
    for (const row of parseDeprecationTable(readFileSync(docPath, 'utf8'))) {
      if (!names.has(row.pkg))
        problems.push(`docs/deprecations.md line ${row.line}: "${row.pkg}" is not a published package (stale row for "${row.item}")`);
    }
  }
  return { ok: problems.length === 0, lines, problems };
}

function main() {
  let result;
  try {
    result = runChangesetGate();
  } catch (e) {
    console.error(`✖ api:gate: ${(e as Error).message}`);
    return 2;
  }
  for (const l of result.lines) console.log(l);
  for (const p of result.problems) console.error(`✖ ${p}`);
  console.log(
    result.ok ? '✔ api:gate passed' : `✖ api:gate failed (${result.problems.length} problem${result.problems.length === 1 ? '' : 's'})`,
  );
  return result.ok ? 0 : 1;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) process.exit(main());
