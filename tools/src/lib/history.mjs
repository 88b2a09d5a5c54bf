// @ts-check
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
import { formatClassification } from './formatClassification.mjs';
import { coverage, parseChangeset, versionBump } from './changesets.mjs';
import { git, listFiles, revParse, showFile } from './git.mjs';
import { NO_CLI_SURFACE, packageSurfaces, surfaceLabel } from './surfaces.mjs';

/**
 * @typedef {object} HistoryVerdict
 * @property {number} commits   commits that changed at least one report (up to `until`)
 * @property {string[]} lines   one line per judged report change
 * @property {string[]} problems
 * @property {boolean} judged   false when the history could not be read (a shallow clone, git failing)
 */

/**
 * @param {{ root: string, until: string, packages: import('./workspace.mjs').PackageInfo[] }} opts
 *   `until`: the last commit to judge (the gate's base: what comes after it is judged against it)
 * @returns {HistoryVerdict}
 */
export function checkReportHistory({ root, until, packages }) {
  /** @type {string[]} */
  const lines = [];
  /** @type {string[]} */
  const problems = [];
  if (git(['rev-parse', '--is-shallow-repository'], root)?.trim() === 'true') {
    lines.push('history: not judged, this clone is shallow (run "git fetch --unshallow" to judge every commit that changed a report)');
    return { commits: 0, lines, problems, judged: false };
  }
  const out = git(['log', '--first-parent', '--format=%H%x09%s', until, '--', 'api-reports'], root);
  if (out === undefined) {
    problems.push(`history: git could not list the commits up to ${until.slice(0, 12)} that changed api-reports/`);
    return { commits: 0, lines, problems, judged: false };
  }
  const commits = out.split('\n').filter(Boolean).map((line) => {
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
    /** @type {Map<string, import('./changesets.mjs').Changeset> | undefined} */
    let added;
    // every package's CLI surface too: a commit that deletes a CLI report removed that command line
    for (const [pkg, surface] of packages.flatMap((p) => packageSurfaces(p, { cliReportSeen: true }).map((s) => /** @type {const} */ ([p, s])))) {
      const { reportPath } = surface;
      const label = surfaceLabel(pkg, surface);
      const before = parent ? showFile(parent, reportPath, root)?.replace(/\r\n/g, '\n') : undefined;
      const stored = showFile(sha, reportPath, root)?.replace(/\r\n/g, '\n');
      // a CLI report deleted in this commit: the command line is gone (judged as the empty surface)
      const after = stored ?? (surface.kind === 'cli' ? NO_CLI_SURFACE : undefined);
      if (before === undefined || after === undefined || before === after) continue; // initial, an API report removed, or untouched
      const classification = surface.classify(before, after);
      const packageJson = `${path.relative(root, pkg.dir).split(path.sep).join('/')}/package.json`;
      const versionAt = (/** @type {string | undefined} */ commit) => {
        const text = commit ? showFile(commit, packageJson, root) : undefined;
        return text ? /** @type {string | undefined} */ (JSON.parse(text).version) : undefined;
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
 * @param {string} root @param {string[]} problems where a malformed line is reported
 * @returns {{ sha: string, why: string }[]}
 */
function readWaivers(root, problems) {
  const file = path.join(root, WAIVERS);
  if (!existsSync(file)) return [];
  /** @type {{ sha: string, why: string }[]} */
  const waivers = [];
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
      waivers.push({ sha: /** @type {string} */ (m[1]), why: /** @type {string} */ (m[2]) });
    });
  return waivers;
}

/**
 * The changesets a commit added (present in it, absent in its first parent), by file.
 * @param {string} root @param {string} sha @param {string | undefined} parent
 * @returns {Map<string, import('./changesets.mjs').Changeset>}
 */
function changesetsAdded(root, sha, parent) {
  const before = new Set(parent ? listFiles(parent, '.changeset', root) : []);
  /** @type {Map<string, import('./changesets.mjs').Changeset>} */
  const added = new Map();
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
