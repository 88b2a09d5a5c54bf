#!/usr/bin/env node
// @ts-check
/**
 * pnpm api:pack — packs every published package once (`pnpm pack`, which turns workspace:*
 * into real versions), installs the tarballs into a scratch project outside the workspace, and
 * proves that each one imports under Node's own ESM resolution and that its types resolve
 * (tsc, module "nodenext", strict, skipLibCheck off for our packages). The `runledger` command of
 * `@runledger/cli` runs from that project (`npx runledger --help`, `migrate`, `runs list --json`),
 * and once more from a project installed with plain npm, without the optional peer
 * `@runledger/store-postgres` (lib/cliSmoke.mjs). Run after `pnpm build`.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { checkInstalledCli, npmConsumer } from './lib/cliSmoke.mjs';
import { hasCliSurface } from './lib/cliSurface.mjs';
import { publishedPackages, WORKSPACE_ROOT } from './lib/workspace.mjs';

/**
 * @param {{ root?: string, keep?: boolean, log?: (s: string) => void }} [opts]
 * @returns {{ ok: boolean, failures: string[], dir: string }}
 */
export function packSmoke(opts = {}) {
  const root = opts.root ?? WORKSPACE_ROOT;
  const log = opts.log ?? ((s) => console.log(s));
  const pkgs = publishedPackages(root);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'runledger-pack-'));
  const tarballs = path.join(dir, 'tarballs');
  const failures = [];
  try {
    /** @type {Record<string, string>} */
    const specs = {};
    for (const p of pkgs) {
      execFileSync('pnpm', ['pack', '--pack-destination', tarballs], { cwd: p.dir, stdio: ['ignore', 'pipe', 'pipe'] });
      const file = readdirSync(tarballs).find((f) => f.startsWith(`${p.name.replace('@', '').replace('/', '-')}-${p.version}`));
      if (!file) throw new Error(`pnpm pack produced no tarball for ${p.name}`);
      specs[p.name] = `file:${path.join(tarballs, file)}`;
      log(`packed ${p.name} → ${file}`);
    }
    const project = path.join(dir, 'project');
    execFileSync('mkdir', ['-p', project]);
    writeFileSync(
      path.join(project, 'package.json'),
      JSON.stringify(
        {
          name: 'runledger-pack-smoke',
          private: true,
          type: 'module',
          dependencies: specs,
          devDependencies: { '@types/node': JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).devDependencies['@types/node'] },
          pnpm: { overrides: specs, onlyBuiltDependencies: ['better-sqlite3', 'esbuild'] },
        },
        null,
        2,
      ),
    );
    // Runtime: every package imports under Node's ESM resolution and exposes what its report lists.
    writeFileSync(
      path.join(project, 'smoke.mjs'),
      [
        ...pkgs.map((p, i) => `import * as m${i} from '${p.name}';`),
        `const mods = { ${pkgs.map((p, i) => `'${p.name}': m${i}`).join(', ')} };`,
        `for (const [name, mod] of Object.entries(mods)) console.log(name + ': ' + Object.keys(mod).length + ' runtime exports');`,
      ].join('\n'),
    );
    // Types: resolve through the packed exports map ("types" condition) under nodenext. A library
    // package's types must stand without Node's (types: []); a package with a bin (the CLI and the
    // runs app, whose signatures take node:http requests) is checked with @types/node installed.
    /** @param {typeof pkgs} list */
    const typeSmoke = (list) =>
      [
        ...list.map((p, i) => `import * as m${i} from '${p.name}';`),
        `type IsAny<T> = 0 extends 1 & T ? true : false;`,
        ...list.map((p, i) => `const typed${i}: IsAny<typeof m${i}> = false; void typed${i};`),
        `export {};`,
      ].join('\n');
    const typeChecks = [
      { file: 'smoke.mts', config: 'tsconfig.json', types: [], list: pkgs.filter((p) => !hasCliSurface(p)) },
      { file: 'smoke-node.mts', config: 'tsconfig.node.json', types: ['node'], list: pkgs.filter(hasCliSurface) },
    ].filter((c) => c.list.length > 0);
    for (const c of typeChecks) {
      writeFileSync(path.join(project, c.file), typeSmoke(c.list));
      writeFileSync(
        path.join(project, c.config),
        JSON.stringify({ compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', strict: true, noEmit: true, skipLibCheck: false, types: c.types }, files: [c.file] }),
      );
    }
    const install = spawnSync('pnpm', ['install', '--prefer-offline', '--ignore-workspace', '--config.confirmModulesPurge=false', '--reporter=append-only'], { cwd: project, encoding: 'utf8', env: { ...process.env, CI: 'true' } });
    if (install.status !== 0) {
      failures.push(`pnpm install of the packed tarballs failed:\n${install.stdout}${install.stderr}`);
      return { ok: false, failures, dir };
    }
    const node = spawnSync(process.execPath, ['smoke.mjs'], { cwd: project, encoding: 'utf8' });
    if (node.status !== 0) failures.push(`importing the installed packages under Node ESM failed:\n${node.stdout}${node.stderr}`);
    else log(node.stdout.trim());
    for (const c of typeChecks) {
      const tsc = spawnSync(process.execPath, [path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', c.config], { cwd: project, encoding: 'utf8' });
      const names = c.list.map((p) => p.name).join(', ');
      if (tsc.status !== 0) failures.push(`type-checking ${names} failed (nodenext, types: ${JSON.stringify(c.types)}):\n${tsc.stdout}${tsc.stderr}`);
      else log(`types resolve for ${names} (tsc nodenext, skipLibCheck off, types: ${JSON.stringify(c.types)})`);
    }
    // The command line: from the pnpm project, then from a plain npm project without the optional peer.
    for (const cli of pkgs.filter(hasCliSurface)) {
      failures.push(...checkInstalledCli({ project, label: `${cli.name} (pnpm, every package)`, log }));
      const npm = npmConsumer({ dir, specs, cli: cli.name });
      if (npm.failure) failures.push(npm.failure);
      else failures.push(...checkInstalledCli({ project: npm.project, label: `${cli.name} (npm, without @runledger/store-postgres)`, withoutPostgres: true, log }));
    }
    return { ok: failures.length === 0, failures, dir };
  } finally {
    if (!opts.keep) rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const r = packSmoke({ keep: process.argv.includes('--keep') });
  for (const f of r.failures) console.error(`✖ ${f}`);
  console.log(r.ok ? '✔ api:pack: every published package installs from its tarball and imports with types' : '✖ api:pack failed');
  process.exit(r.ok ? 0 : 1);
}
