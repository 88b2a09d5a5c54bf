import { spawnSync } from 'node:child_process';

/** What a finished command left behind. */
export interface CommandResult {
  status: number | null;
  stdout: string;
  stderr: string;
  /** stdout and stderr, for messages and assertions on either */
  output: string;
}

/** npm settings a machine may give through the environment that a scratch project still needs. */
const KEPT_NPM_CONFIG = new Set(['npm_config_nodedir', 'npm_config_cache', 'npm_config_userconfig', 'npm_config_store_dir']);

/**
 * The environment for commands run in a scratch repository or project: this process's, without
 * what the outer `pnpm`/`turbo`/`vitest` run put there for itself (package and lifecycle facts,
 * pnpm's settings passed on as `npm_config_*`, a registry among them; turbo's run state;
 * NODE_ENV=test), so the inner npm, pnpm and turbo read their own configuration.
 */
export function cleanEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/^npm_(package|lifecycle)_/i.test(key)) continue;
    if (/^npm_config_/i.test(key) && !KEPT_NPM_CONFIG.has(key.toLowerCase())) continue;
    if (/^(TURBO_|VITEST)/.test(key) && key !== 'TURBO_TELEMETRY_DISABLED') continue;
    if (key === 'NODE_ENV' || key === 'API_GATE_BASE' || key === 'API_GATE_RELEASED' || key === 'INIT_CWD') continue;
    env[key] = value;
  }
  return { ...env, CI: 'true', TURBO_TELEMETRY_DISABLED: '1', DO_NOT_TRACK: '1', FORCE_COLOR: '0', NO_COLOR: '1', ...extra };
}

/** Runs a command to its end and keeps its output (never throws for a non-zero exit). */
export function runCommand(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = cleanEnv()): CommandResult {
  const r = spawnSync(command, args, { cwd, env, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  if (r.error) throw new Error(`${command} ${args.join(' ')} could not start in ${cwd}: ${r.error.message}`);
  return { status: r.status, stdout: r.stdout, stderr: r.stderr, output: `${r.stdout}${r.stderr}` };
}

/** Runs a command that must succeed; the error carries its whole output. */
export function mustRun(command: string, args: string[], cwd: string, env?: NodeJS.ProcessEnv): CommandResult {
  const r = runCommand(command, args, cwd, env);
  if (r.status !== 0) throw new Error(`${command} ${args.join(' ')} exited ${r.status} in ${cwd}:\n${r.output.slice(-20_000)}`);
  return r;
}
