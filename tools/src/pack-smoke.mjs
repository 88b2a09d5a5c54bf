#!/usr/bin/env node
// @ts-check
/**
 * pnpm api:pack — packs every published package once (`pnpm pack`, which turns workspace:*
 * into real versions), installs the tarballs into a scratch project outside the workspace, and
 * proves that each one imports under Node's own ESM resolution and that its types resolve
 * (tsc, module "nodenext", strict, skipLibCheck off for our packages). Run after `pnpm build`.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
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
    // Types: resolve through the packed exports map ("types" condition) under nodenext.
    writeFileSync(
      path.join(project, 'smoke.mts'),
      [
        ...pkgs.map((p, i) => `import * as m${i} from '${p.name}';`),
        `type IsAny<T> = 0 extends 1 & T ? true : false;`,
        ...pkgs.map((p, i) => `const typed${i}: IsAny<typeof m${i}> = false; void typed${i};`),
        `export {};`,
      ].join('\n'),
    );
    writeFileSync(
      path.join(project, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', strict: true, noEmit: true, skipLibCheck: false, types: [] }, files: ['smoke.mts'] }),
    );
    const install = spawnSync('pnpm', ['install', '--prefer-offline', '--ignore-workspace', '--config.confirmModulesPurge=false', '--reporter=append-only'], { cwd: project, encoding: 'utf8', env: { ...process.env, CI: 'true' } });
    if (install.status !== 0) {
      failures.push(`pnpm install of the packed tarballs failed:\n${install.stdout}${install.stderr}`);
      return { ok: false, failures, dir };
    }
    const node = spawnSync(process.execPath, ['smoke.mjs'], { cwd: project, encoding: 'utf8' });
    if (node.status !== 0) failures.push(`importing the installed packages under Node ESM failed:\n${node.stdout}${node.stderr}`);
    else log(node.stdout.trim());
    const tsc = spawnSync(process.execPath, [path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'], { cwd: project, encoding: 'utf8' });
    if (tsc.status !== 0) failures.push(`type-checking the installed packages failed (nodenext):\n${tsc.stdout}${tsc.stderr}`);
    else log(`types resolve for ${pkgs.map((p) => p.name).join(', ')} (tsc nodenext, skipLibCheck off)`);
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
