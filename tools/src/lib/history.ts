/**
 * The committed history of the API reports (and CLI surface reports): every mainline commit up to
 * a given one that changed a report must have brought the changeset for it in that same commit.
 *
 * A clean clone cannot know which commits a push brought (CI compares with HEAD~1), so a report
 * changed in the first of two pushed commits would pass unseen. Walking every commit that touched
 * `api-reports/` closes that gap: with the rule "a report change and its changeset in the same
 * commit", each such commit can be judged on its own, whenever and however it landed. Merge
 * commits are judged as a whole against their first parent (a merged branch is one change).
 *
 * A commit that landed without its changeset would fail every later run; the way out is a line in
 * `api-reports/history-waivers.txt` (`<commit sha, 7+ hex digits> <why>`), which CODEOWNERS puts
 * under the same review as the reports. A shallow clone cannot show the history: the check then
 * says so and judges nothing (the change since the base is still judged by the gate).
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { formatClassification } from './classifier/formatClassification.ts';
import { coverage, parseChangeset, versionBump } from './changesets.ts';
import { git, listFiles, revParse, showFile } from './git.ts';
import { formerEntryReports } from './entries.ts';
import { NO_CLI_SURFACE, packageSurfaces } from './surfaces.ts';
import type { PackageInfo } from './workspace.ts';
import type { Changeset } from './changesets.ts';

export interface HistoryVerdict {
  /** commits that changed at least one report (up to `until`) */
  commits: number;
  /** one line per judged report change */
  lines: string[];
  problems: string[];
  /** false when the history could not be read (a shallow clone, git failing) */
  judged: boolean;
}

/**
 *   `until`: the last commit to judge (the gate's base: what comes after it is judged against it)
 */
export function checkReportHistory({ root, until, packages }: { root: string; until: string; packages: PackageInfo[] }): HistoryVerdict {
  const lines: string[] = [];
  const problems: string[] = [];
  if (git(['rev-parse', '--is-shallow-repository'], root)?.trim() === 'true') {
    lines.push('history: not judged, this clone is shallow (run "git fetch --unshallow" to judge every commit that changed a report)');
    return { commits: 0, lines, problems, judged: false };
  }
  const out = git(['log', '--first-parent', '--format=%H%x09%s', until, '--', 'api-reports'], root);
  if (out === undefined) {
    problems.push(`history: git could not list the commits up to ${until.slice(0, 12)} that changed api-reports/`);
    return { commits: 0, lines, problems, judged: false };
  }
  const commits = out
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const tab = line.indexOf('\t');
      return { sha: line.slice(0, tab), subject: line.slice(tab + 1) };
    });
  const waivers = readWaivers(root, problems);
  for (const { sha, subject } of commits) {
    const waiver = waivers.find((w) => sha.startsWith(w.sha));
    if (waiver) {
      lines.push(`commit ${sha.slice(0, 12)} ("${subject}"): waived in ${WAIVERS}: ${waiver.why}`);
      continue;
    }
    const parent = revParse(`${sha}^1`, root);
    const where = `commit ${sha.slice(0, 12)} ("${subject}")`;
    let added: Map<string, Changeset> | undefined;
    // every package's CLI surface too: a commit that deletes a CLI report removed that command line
    // an entry point's report in the commit or its parent whose entry the package no longer exports: judged as removed
    const reports = [...listFiles(sha, 'api-reports', root), ...(parent ? listFiles(parent, 'api-reports', root) : [])];
    const surfaces = packages.flatMap((p) =>
      packageSurfaces(p, { cliReportSeen: true, formerEntryReports: formerEntryReports(p, reports, packages) }).map((s) => [p, s] as const),
    );
    for (const [pkg, surface] of surfaces) {
      const { reportPath } = surface;
      const label = surface.label;
      const before = parent ? showFile(parent, reportPath, root)?.replace(/\r\n/g, '\n') : undefined;
      const stored = showFile(sha, reportPath, root)?.replace(/\r\n/g, '\n');
      // a CLI report deleted in this commit: the command line is gone (judged as the empty surface)
      // (an entry point's report deleted: its surface is gone, judged as the empty API surface)
      const after = stored ?? surface.gone ?? (surface.kind === 'cli' ? NO_CLI_SURFACE : undefined);
      if (before === undefined || after === undefined || before === after) continue; // initial, an API report removed, or untouched
      const classification = surface.classify(before, after);
      const packageJson = `${path.relative(root, pkg.dir).split(path.sep).join('/')}/package.json`;
      const versionAt = (commit: string | undefined) => {
        const text = commit ? showFile(commit, packageJson, root) : undefined;
        return text ? (JSON.parse(text).version as string | undefined) : undefined;
      };
      if (classification.level === 'identical') continue; // a report rewritten, the surface the same
      const version = versionAt(sha) ?? pkg.version;
      added ??= changesetsAdded(root, sha, parent);
      const mine = [...added.values()].filter((cs) => cs.releases.has(pkg.name));
      const released = versionBump(versionAt(parent), version);
      const { need, covered } = coverage({ name: pkg.name, level: classification.level, version, counted: mine, released });
      const found = [
        ...mine.map((cs) => `${cs.file} → ${cs.releases.get(pkg.name)}`),
        ...(released !== 'none' ? [`package.json version raised → ${released}`] : []),
      ];
      const foundText = found.length ? found.join(', ') : 'no changeset for this package added in that commit';
      if (covered) {
        lines.push(`${where}: ${label} ${classification.level}, covered by ${foundText}`);
        continue;
      }
      problems.push(
        `${where}: ${classification.level} change to ${reportPath} of ${label} needs a changeset bumping it at least "${need}" added in the same commit; found: ${foundText}.\n` +
          formatClassification(label, classification, { limit: 10 }),
      );
    }
  }
  return { commits: commits.length, lines, problems, judged: true };
}

/** Where commits that landed without their changeset are excused, under review like the reports. */
export const WAIVERS = 'api-reports/history-waivers.txt';

/**
 * The waivers: `<sha> <why>` per line (7 to 40 hex digits, a reason); `#` starts a comment.
 * @param problems where a malformed line is reported
 */
function readWaivers(root: string, problems: string[]): { sha: string; why: string }[] {
  const file = path.join(root, WAIVERS);
  if (!existsSync(file)) return [];
  const waivers: { sha: string; why: string }[] = [];
  readFileSync(file, 'utf8')
    .split(/\r?\n/)
    .forEach((raw, index) => {
      const line = raw.trim();
      if (line === '' || line.startsWith('#')) return;
      const m = /^([0-9a-f]{7,40})\s+(\S.*)$/.exec(line);
      if (!m) {
        problems.push(`${WAIVERS} line ${index + 1}: expected "<commit sha, 7 to 40 hex digits> <why it is waived>", got "${line}"`);
        return;
      }
      waivers.push({ sha: m[1] as string, why: m[2] as string });
    });
  return waivers;
}

/**
 * The changesets a commit added (present in it, absent in its first parent), by file.
 */
function changesetsAdded(root: string, sha: string, parent: string | undefined): Map<string, Changeset> {
  const before = new Set(parent ? listFiles(parent, '.changeset', root) : []);
  const added: Map<string, Changeset> = new Map();
  for (const file of listFiles(sha, '.changeset', root)) {
    if (before.has(file) || !file.endsWith('.md') || path.basename(file).toLowerCase() === 'readme.md') continue;
    const text = showFile(sha, file, root);
    if (text === undefined) continue;
    try {
      added.set(file, parseChangeset(text, file));
    } catch {
      // an unreadable changeset covers nothing; the gate reports unreadable pending ones itself
    }
  }
  return added;
}
