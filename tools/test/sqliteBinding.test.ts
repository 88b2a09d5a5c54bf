// The local prebuild of better-sqlite3 the release test's consumer installs from: made from the
// workspace's build, found and unpacked by better-sqlite3's own install script (prebuild-install),
// offline, without compiling.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SQLITE_BINDING, sqliteLocalPrebuild } from '../src/lib/sqliteBinding.ts';
import { ROOT } from './helpers.js';

const work = mkdtempSync(path.join(os.tmpdir(), 'runledger-prebuild-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const storeSqlite = realpathSync(path.join(ROOT, 'packages', 'store-sqlite', 'package.json'));
const sqliteDir = path.dirname(createRequire(storeSqlite).resolve('better-sqlite3/package.json'));
const version = (JSON.parse(readFileSync(path.join(sqliteDir, 'package.json'), 'utf8')) as { version: string }).version;

describe('sqliteLocalPrebuild', () => {
  it('writes the tarball prebuild-install looks for, and better-sqlite3 install script unpacks it offline', () => {
    const { env, tarball } = sqliteLocalPrebuild(ROOT, path.join(work, 'prebuilds'));
    expect(tarball).toBe(`better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`);
    expect(env).toEqual({ npm_config_better_sqlite3_local_prebuilds: path.join(work, 'prebuilds') });

    // a package folder as npm leaves it before the install script: package.json, no build/
    const pkg = path.join(work, 'better-sqlite3');
    mkdirSync(pkg);
    copyFileSync(path.join(sqliteDir, 'package.json'), path.join(pkg, 'package.json'));
    const prebuildInstall = createRequire(path.join(sqliteDir, 'package.json')).resolve('prebuild-install/bin.js');
    const r = spawnSync(process.execPath, [prebuildInstall], {
      cwd: pkg,
      env: { ...process.env, ...env },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(r.status, `${r.stdout}${r.stderr}`).toBe(0);
    expect(readFileSync(path.join(pkg, SQLITE_BINDING)).equals(readFileSync(path.join(sqliteDir, SQLITE_BINDING)))).toBe(true);
  });

  it('is not taken by another release of better-sqlite3: its install script goes on to download (here: refused) and compile', () => {
    const { env } = sqliteLocalPrebuild(ROOT, path.join(work, 'again'));
    const pkg = path.join(work, 'other-release');
    mkdirSync(pkg);
    const json = JSON.parse(readFileSync(path.join(sqliteDir, 'package.json'), 'utf8')) as { version: string };
    writeFileSync(path.join(pkg, 'package.json'), JSON.stringify({ ...json, version: '12.0.0' }));
    const prebuildInstall = createRequire(path.join(sqliteDir, 'package.json')).resolve('prebuild-install/bin.js');
    // the download goes to a port nothing listens on: it fails at once instead of waiting on the network
    const offline = { ...process.env, ...env, npm_config_better_sqlite3_binary_host: 'http://127.0.0.1:9' };
    const r = spawnSync(process.execPath, [prebuildInstall], { cwd: pkg, env: offline, encoding: 'utf8', timeout: 60_000 });
    expect(r.status, `${r.stdout}${r.stderr}`).not.toBe(0);
    expect(existsSync(path.join(pkg, SQLITE_BINDING))).toBe(false);
  });
});
