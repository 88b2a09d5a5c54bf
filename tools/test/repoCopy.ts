import { appendFileSync, copyFileSync, existsSync, lstatSync, mkdirSync, readlinkSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { mustRun } from './commands.js';

/** The identity of the commits the tests make in a scratch repository. */
export const TEST_GIT_IDENTITY = { name: 'runledger release test', email: 'release-test@runledger.invalid' };

/**
 * Copies the repository's files as they are in the working tree (tracked, plus new files git does
 * not ignore; never node_modules, dist or other ignored output) into `dir`, makes it a git
 * repository of its own with one commit, and installs it with pnpm (from the shared store, offline
 * where it can). `npmrc` is appended to the copy's `.npmrc` before that commit.
 */
export function copyRepository(root: string, dir: string, npmrc: string, env: NodeJS.ProcessEnv): void {
  const listed = mustRun('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], root, env).stdout;
  const files = [...new Set(listed.split('\0').filter(Boolean))];
  for (const file of files) {
    const from = path.join(root, file);
    if (!existsSync(from)) continue; // deleted in the working tree
    const to = path.join(dir, file);
    mkdirSync(path.dirname(to), { recursive: true });
    if (lstatSync(from).isSymbolicLink()) symlinkSync(readlinkSync(from), to);
    else copyFileSync(from, to);
  }
  appendFileSync(path.join(dir, '.npmrc'), `\n${npmrc}`);
  const git = (...args: string[]) => mustRun('git', args, dir, env);
  git('init', '--quiet', '--initial-branch=main');
  git('config', 'user.name', TEST_GIT_IDENTITY.name);
  git('config', 'user.email', TEST_GIT_IDENTITY.email);
  git('config', 'commit.gpgsign', 'false');
  git('config', 'tag.gpgsign', 'false');
  git('add', '--all');
  git('commit', '--quiet', '-m', 'runledger as it stands, with the test registry in .npmrc');
  mustRun('pnpm', ['install', '--frozen-lockfile', '--prefer-offline', '--reporter=append-only'], dir, env);
}

/** Stages everything and commits it with the test identity. */
export function commitAll(dir: string, message: string, env: NodeJS.ProcessEnv): void {
  mustRun('git', ['add', '--all'], dir, env);
  mustRun('git', ['commit', '--quiet', '-m', message], dir, env);
}
