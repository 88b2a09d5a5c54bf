// @ts-check
/** Where a scope's packages are published: the registry of the normal npm configuration. */
import { spawnSync } from 'node:child_process';

/**
 * @typedef {object} PublishRegistry
 * @property {string} url      e.g. "http://127.0.0.1:4873/"
 * @property {string} envName  the npm_config_* variable that carries it to `changeset publish`
 * @property {string} from     which setting it came from, for the log
 */

/**
 * Asks npm, in `root`, for one config value (project and user `.npmrc`, `npm_config_*`).
 * @param {string} key @param {string} root @param {NodeJS.ProcessEnv} env
 * @returns {string | undefined}
 */
function npmConfig(key, root, env) {
  const r = spawnSync('npm', ['config', 'get', key], { cwd: root, env, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`"npm config get ${key}" failed in ${root}: ${r.stderr.trim()}`);
  const value = r.stdout.trim();
  return value === '' || value === 'undefined' || value === 'null' ? undefined : value;
}

/**
 * The registry a scope publishes to: `<scope>:registry` when set (`.npmrc` line
 * `@runledger:registry=…` or `npm_config_@runledger:registry`), else `registry`
 * (`--registry` through `npm_config_registry`, or the `.npmrc` default). Never a hard-coded one.
 * @param {{ scope: string, root: string, env: NodeJS.ProcessEnv }} opts  scope like "@runledger"
 * @returns {PublishRegistry}
 */
export function publishRegistry({ scope, root, env }) {
  const scoped = npmConfig(`${scope}:registry`, root, env);
  if (scoped) return { url: scoped, envName: `npm_config_${scope}:registry`, from: `npm config ${scope}:registry` };
  const general = npmConfig('registry', root, env);
  if (!general) throw new Error(`no npm registry configured in ${root}: set ${scope}:registry or registry in .npmrc`);
  return { url: general, envName: 'npm_config_registry', from: 'npm config registry' };
}
