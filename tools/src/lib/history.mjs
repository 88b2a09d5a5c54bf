// @ts-check
/**
 * The committed history of the API reports: every mainline commit up to a given one that changed
 * a report must have brought the changeset for it in that same commit.
 *
 * A clean clone cannot know which commits a push brought (CI compares with HEAD~1), so a report
 * changed in the first of two pushed commits would pass unseen. Walking every commit that touched
 * `api-reports/` closes that gap: with the rule "a report change and its changeset in the same
 * commit", each such commit can be judged on its own, whenever and however it landed. Merge
 * commits are judged as a whole against their first parent (a merged branch is one change).
 */
import path from 'node:path';
import { classifyReports, formatClassification } from './classify.mjs';
import { bumpCovers, maxBump, parseChangeset, requiredBump, versionBump } from './changesets.mjs';
import { git, listFiles, revParse, showFile } from './git.mjs';

/**
 * @typedef {object} HistoryVerdict
 * @property {number} commits   commits that changed at least one report (up to `until`)
 * @property {string[]} lines   one line per judged report change
 * @property {string[]} problems
 */

/**
 * @param {{ root: string, until: string, packages: import('./workspace.mjs').PackageInfo[] }} opts
 *   `until`: the last commit to judge (the gate's base: what comes after it is judged against it)
 * @returns {HistoryVerdict}
 */
export function checkReportHistory({ root, until, packages }) {
  const out = git(['log', '--first-parent', '--format=%H%x09%s', until, '--', 'api-reports'], root) ?? '';
  const commits = out.split('\n').filter(Boolean).map((line) => {
    const tab = line.indexOf('\t');
    return { sha: line.slice(0, tab), subject: line.slice(tab + 1) };
  });
  /** @type {string[]} */
  const lines = [];
  /** @type {string[]} */
  const problems = [];
  for (const { sha, subject } of commits) {
    const parent = revParse(`${sha}^1`, root);
    const where = `commit ${sha.slice(0, 12)} ("${subject}")`;
    /** @type {Map<string, import('./changesets.mjs').Changeset> | undefined} */
    let added;
    for (const pkg of packages) {
      const reportPath = `api-reports/${pkg.unscoped}.api.md`;
      const before = parent ? showFile(parent, reportPath, root)?.replace(/\r\n/g, '\n') : undefined;
      const after = showFile(sha, reportPath, root)?.replace(/\r\n/g, '\n');
      if (before === undefined || after === undefined || before === after) continue; // initial, removed or untouched
      const classification = classifyReports(before, after, { resolveDir: pkg.dir });
      const packageJson = `${path.relative(root, pkg.dir).split(path.sep).join('/')}/package.json`;
      const versionAt = (/** @type {string | undefined} */ commit) => {
        const text = commit ? showFile(commit, packageJson, root) : undefined;
        return text ? /** @type {string | undefined} */ (JSON.parse(text).version) : undefined;
      };
      const version = versionAt(sha) ?? pkg.version;
      const need = requiredBump(classification.level, version);
      if (need === 'none') continue;
      added ??= changesetsAdded(root, sha, parent);
      const mine = [...added.values()].filter((cs) => cs.releases.has(pkg.name));
      const released = versionBump(versionAt(parent), version);
      const have = maxBump([...mine.map((cs) => /** @type {import('./changesets.mjs').Bump} */ (cs.releases.get(pkg.name))), released]);
      const found = [
        ...mine.map((cs) => `${cs.file} → ${cs.releases.get(pkg.name)}`),
        ...(released !== 'none' ? [`package.json version raised → ${released}`] : []),
      ];
      const foundText = found.length ? found.join(', ') : 'no changeset for this package added in that commit';
      if (bumpCovers(have, need)) {
        lines.push(`${where}: ${pkg.name} ${classification.level}, covered by ${foundText}`);
        continue;
      }
      problems.push(
        `${where}: ${classification.level} change to ${reportPath} of ${pkg.name} needs a changeset bumping it at least "${need}" added in the same commit; found: ${foundText}.\n` +
          formatClassification(pkg.name, classification, { limit: 10 }),
      );
    }
  }
  return { commits: commits.length, lines, problems };
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
