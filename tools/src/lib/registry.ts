/** Where a scope's packages are published: the registry of the normal npm configuration. */
import { spawnSync } from 'node:child_process';

export interface PublishRegistry {
  /** e.g. "http://127.0.0.1:4873/" */
  url: string;
  /** the npm_config_* variable that carries it to `changeset publish` */
  envName: string;
  /** which setting it came from, for the log */
  from: string;
}

/**
 * Asks npm, in `root`, for one config value (project and user `.npmrc`, `npm_config_*`).
 */
function npmConfig(key: string, root: string, env: NodeJS.ProcessEnv): string | undefined {
  const r = spawnSync('npm', ['config', 'get', key], { cwd: root, env, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`"npm config get ${key}" failed in ${root}: ${r.stderr.trim()}`);
  const value = r.stdout.trim();
  return value === '' || value === 'undefined' || value === 'null' ? undefined : value;
}

/**
 * The registry a scope publishes to: `<scope>:registry` when set (`.npmrc` line
 * `@runledger:registry=…` or `npm_config_@runledger:registry`), else `registry`
 * (`--registry` through `npm_config_registry`, or the `.npmrc` default). Never a hard-coded one.
 * @param opts  scope like "@runledger"
 */
export function publishRegistry({ scope, root, env }: { scope: string; root: string; env: NodeJS.ProcessEnv }): PublishRegistry {
  const scoped = npmConfig(`${scope}:registry`, root, env);
  if (scoped) return { url: scoped, envName: `npm_config_${scope}:registry`, from: `npm config ${scope}:registry` };
  const general = npmConfig('registry', root, env);
  if (!general) throw new Error(`no npm registry configured in ${root}: set ${scope}:registry or registry in .npmrc`);
  return { url: general, envName: 'npm_config_registry', from: 'npm config registry' };
}

/**
 * The version each package has in the registry (its `latest`), by name; a package the registry
 * does not know (never published: npm's E404) is left out.
 * @throws when npm fails otherwise (the registry unreachable, a refused token), naming the package
 */
export function registryVersions({
  names,
  registry,
  root,
  env,
}: {
  names: string[];
  registry: PublishRegistry;
  root: string;
  env: NodeJS.ProcessEnv;
}): Map<string, string> {
  const versions: Map<string, string> = new Map();
  for (const name of names) {
    const r = spawnSync('npm', ['view', name, 'version', '--json'], {
      cwd: root,
      env: { ...env, [registry.envName]: registry.url },
      encoding: 'utf8',
    });
    if (r.status !== 0) {
      if (/\bE404\b/.test(`${r.stdout}${r.stderr}`)) continue;
      throw new Error(`"npm view ${name} version" failed against ${registry.url}: ${`${r.stderr}`.trim().split('\n').slice(-3).join(' ')}`);
    }
    const text = r.stdout.trim();
    const version: unknown = text === '' ? undefined : JSON.parse(text);
    if (typeof version === 'string') versions.set(name, version);
  }
  return versions;
}
