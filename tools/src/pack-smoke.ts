/**
 * pnpm api:pack — packs every published package once (`pnpm pack`, which turns workspace:*
 * into real versions), installs the tarballs into a scratch project outside the workspace, and
 * proves that each one, every entry point of it (`@runledger/trace/store` too), loads with `import`
 * and with `require()` (require(esm)) under Node's own
 * resolution, and that its types resolve from an ESM and from a CommonJS TypeScript file (tsc,
 * module "nodenext", strict, skipLibCheck off for our packages): see lib/smokeConsumers.ts. The
 * `runledger` command of `@runledger/cli` runs from that project (`npx runledger --help`,
 * `migrate`, `runs list --json`), and once more from a project installed with plain npm, without
 * the optional peer `@runledger/store-postgres` (lib/cliSmoke.ts). The same consumers of every entry
 * type-check with the oldest TypeScript docs/consuming.md names for it, ESM (nodenext and bundler)
 * and CommonJS, installed into the same project (lib/oldestTypeScript.ts). `@runledger/ai-sdk` also runs
 * an AI SDK 7 loop on Node 24, with `ai` 7 as its peer, from a project of its own (lib/ai7LoopSmoke.ts). The type checks are
 * independent tsc processes and run side by side on every core (lib/typeCheckJobs.ts). Run after
 * `pnpm build`.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ai7LoopSmoke } from './lib/ai7LoopSmoke.ts';
import { checkInstalledCli, npmConsumer } from './lib/cliSmoke.ts';
import { hasCliSurface } from './lib/cliSurface.ts';
import { apiEntries } from './lib/entries.ts';
import { oldestTypeScriptChecks, oldestTypeScriptInstall } from './lib/oldestTypeScript.ts';
import { writeSmokeConsumers } from './lib/smokeConsumers.ts';
import { runTypeCheckJobs, type TypeCheckJob } from './lib/typeCheckJobs.ts';
import { provideSqliteBinding } from './lib/sqliteBinding.ts';
import { publishedPackages, WORKSPACE_ROOT } from './lib/workspace.ts';
import type { PackageInfo } from './lib/workspace.ts';

/**
 * Peer dependencies whose own published declarations need more than they bring. `ai` 6's
 * declarations import `node:http`, and through `@ai-sdk/provider` the module `json-schema`, whose
 * declarations (`@types/json-schema`) it lists only as a devDependency (vercel/ai pull request
 * 15874): with `skipLibCheck` off they fail without both. A package with such a peer is
 * type-checked with Node's types and those declaration packages installed, as its consumers must
 * (docs/ai-sdk.md).
 */
const PEER_TYPE_NEEDS: Readonly<Record<string, { readonly install: Readonly<Record<string, string>> }>> = {
  ai: { install: { '@types/json-schema': '7.0.15' } },
};

const peerTypeNeeds = (p: PackageInfo) => Object.keys(p.json.peerDependencies ?? {}).filter((name) => name in PEER_TYPE_NEEDS);
/**
 * The peers of PEER_TYPE_NEEDS pinned to the version the package's own tests use (its
 * devDependency): `@runledger/ai-sdk`'s peer range `^6.0.0 || ^7.0.0` would otherwise install the
 * newest `ai` 7, which needs Node 22, while this project loads the packages on the test command's
 * Node (20). The ai 7 line is checked by the package's own tests (types-ai7/tsconfig.json, the Node 24 pass).
 */
const peerPins = (pkgs: readonly PackageInfo[]): Record<string, string> =>
  Object.fromEntries(
    pkgs.flatMap((p) =>
      peerTypeNeeds(p).flatMap((peer) => (p.json.devDependencies?.[peer] === undefined ? [] : [[peer, p.json.devDependencies[peer]]])),
    ),
  );
export async function packSmoke(opts: { root?: string; keep?: boolean; log?: (s: string) => void } = {}): Promise<{
  ok: boolean;
  failures: string[];
  dir: string;
}> {
  const root = opts.root ?? WORKSPACE_ROOT;
  const log = opts.log ?? ((s) => console.log(s));
  const pkgs = publishedPackages(root);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'runledger-pack-'));
  const tarballs = path.join(dir, 'tarballs');
  const failures = [];
  try {
    const specs: Record<string, string> = {};
    for (const p of pkgs) {
      execFileSync('pnpm', ['pack', '--pack-destination', tarballs], { cwd: p.dir, stdio: ['ignore', 'pipe', 'pipe'] });
      const file = readdirSync(tarballs).find((f) => f.startsWith(`${p.name.replace('@', '').replace('/', '-')}-${p.version}`));
      if (!file) throw new Error(`pnpm pack produced no tarball for ${p.name}`);
      specs[p.name] = `file:${path.join(tarballs, file)}`;
      log(`packed ${p.name} → ${file}`);
    }
    const entries = pkgs.flatMap((p) => apiEntries(p).map((e) => e.specifier));
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
          devDependencies: {
            '@types/node': JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).devDependencies['@types/node'],
            ...Object.assign({}, ...pkgs.flatMap(peerTypeNeeds).map((peer) => PEER_TYPE_NEEDS[peer]?.install)),
            ...peerPins(pkgs),
            ...oldestTypeScriptInstall(entries),
          },
          // better-sqlite3's native module comes from the workspace's build (lib/sqliteBinding.ts)
          pnpm: { overrides: specs, onlyBuiltDependencies: ['esbuild'] },
        },
        null,
        2,
      ),
    );
    // Types: a library package's types must stand without Node's (types: []); a package with a bin
    // (the CLI and the runs app, whose signatures take node:http requests) is checked with
    // @types/node installed, and so is a library with a peer of PEER_TYPE_NEEDS.
    // Every entry point of a package is consumed: its main entry and each subpath of its exports
    // (`@runledger/trace/store`), as lib/entries.ts lists them for the API gate.
    const library = pkgs.filter((p) => !hasCliSurface(p));
    const specifiers = (list: PackageInfo[]) => list.flatMap((p) => apiEntries(p).map((e) => e.specifier));
    const consumers = writeSmokeConsumers(project, [
      { names: specifiers(library.filter((p) => peerTypeNeeds(p).length === 0)), types: [] },
      { names: specifiers(pkgs.filter(hasCliSurface)), types: ['node'] },
      { names: specifiers(library.filter((p) => peerTypeNeeds(p).length > 0)), types: ['node'] },
    ]);
    const install = spawnSync(
      'pnpm',
      ['install', '--prefer-offline', '--ignore-workspace', '--config.confirmModulesPurge=false', '--reporter=append-only'],
      { cwd: project, encoding: 'utf8', env: { ...process.env, CI: 'true' } },
    );
    if (install.status !== 0) {
      failures.push(`pnpm install of the packed tarballs failed:\n${install.stdout}${install.stderr}`);
      return { ok: false, failures, dir };
    }
    const sqlite = provideSqliteBinding(root, path.join(project, 'node_modules', '@runledger', 'store-sqlite', 'package.json'));
    if (sqlite.failure !== undefined) {
      failures.push(sqlite.failure);
      return { ok: false, failures, dir };
    }
    log(`better-sqlite3's native module: ${sqlite.how}`);
    // Runtime: every package loads under Node's ESM resolution (import) and from CommonJS (require).
    for (const [how, file] of [
      ['import', consumers.esm],
      ['require()', consumers.cjs],
    ] as const) {
      const node = spawnSync(process.execPath, [file], { cwd: project, encoding: 'utf8' });
      if (node.status !== 0)
        failures.push(
          `loading the installed packages with ${how} on Node ${process.version} failed (${file}):\n${node.stdout}${node.stderr}`,
        );
      else log(node.stdout.trim());
    }
    // Types: the consumers of the newest TypeScript and the oldest named for each entry, ESM and
    // CommonJS (one tsc -b per named version), side by side (lib/typeCheckJobs.ts).
    const newest = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
    const typeChecks: TypeCheckJob[] = consumers.typeChecks.map((c) => {
      const names = c.names.join(', ');
      return {
        tsc: newest,
        args: ['-p', c.config],
        passed: `types resolve for ${names} from ESM and CommonJS (${c.files.join(', ')}; tsc nodenext, skipLibCheck off, types: ${JSON.stringify(c.types)})`,
        failed: `type-checking ${names} failed (nodenext, ${c.files.join(' and ')}, types: ${JSON.stringify(c.types)})`,
      };
    });
    typeChecks.push(...oldestTypeScriptChecks({ project, specifiers: entries }));
    failures.push(...(await runTypeCheckJobs(typeChecks, { cwd: project, log })));
    // The command line: from the pnpm project, then from a plain npm project without the optional peer.
    for (const cli of pkgs.filter(hasCliSurface)) {
      failures.push(...checkInstalledCli({ project, label: `${cli.name} (pnpm, every package)`, log }));
      const npm = npmConsumer({ root, dir, specs, cli: cli.name });
      if (npm.failure) failures.push(npm.failure);
      else
        failures.push(
          ...checkInstalledCli({
            project: npm.project,
            label: `${cli.name} (npm, without @runledger/store-postgres)`,
            withoutPostgres: true,
            log,
          }),
        );
    }
    // AI SDK 7: an ai 7 loop on Node 24 with the ai-sdk tarball (lib/ai7LoopSmoke.ts).
    if (pkgs.some((p) => p.name === '@runledger/ai-sdk')) failures.push(...ai7LoopSmoke({ root, dir, specs, log }));
    return { ok: failures.length === 0, failures, dir };
  } finally {
    if (!opts.keep) rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const r = await packSmoke({ keep: process.argv.includes('--keep') });
  for (const f of r.failures) console.error(`✖ ${f}`);
  console.log(
    r.ok ? '✔ api:pack: every published package installs from its tarball, imports and require()s with types' : '✖ api:pack failed',
  );
  process.exit(r.ok ? 0 : 1);
}
