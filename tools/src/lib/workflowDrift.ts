/**
 * What keeps the GitHub workflows in step with the repository: the CI workflow runs exactly the
 * README's test command on every tested Node line, from a full clone; and every `pnpm <script>`
 * a workflow runs names a script of the root package.json. Each problem names the file, the
 * field and the rule.
 */
import yaml from 'js-yaml';

/**
 * The README's commands: the non-comment lines of its first `sh` code block, in order
 * (README.md: 1. the demo, 2. every test).
 * @param readme the README's text
 */
export function readmeCommands(readme: string): string[] {
  const block = /```sh\n([\s\S]*?)\n```/.exec(readme.replace(/\r\n/g, '\n'));
  if (!block) return [];
  return (block[1] ?? '')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
}

/**
 * A workflow file's text as an object (js-yaml: `on` stays a string key).
 */
export function parseWorkflow(text: string): { jobs?: Record<string, any> } {
  const doc = yaml.load(text);
  return doc && typeof doc === 'object' ? (doc as any) : {};
}

const stepsOf = (job: any): any[] => (Array.isArray(job?.steps) ? job.steps : []);

/** @param action e.g. `actions/checkout` */
const uses = (step: any, action: string) => typeof step?.uses === 'string' && step.uses.startsWith(`${action}@`);

/**
 * Checks the CI workflow against the README: some job has a step whose `run` is exactly the
 * README's test command (its second command), and that job checks out the full history
 * (`fetch-depth: 0`: the API gate reads it), sets up Node from `matrix.node` and lists every
 * Node line in `strategy.matrix.node`.
 *   `workflow` is the YAML text, `file` its path for the messages
 * @returns problems; empty when the workflow follows the README
 */
export function ciWorkflowProblems({
  workflow,
  file,
  readme,
  nodeLines,
}: {
  workflow: string;
  file: string;
  readme: string;
  nodeLines: number[];
}): string[] {
  const command = readmeCommands(readme)[1];
  if (!command) return ['README.md: the first sh block has no second command (the test command)'];
  const jobs = Object.entries(parseWorkflow(workflow).jobs ?? {});
  const runsIt = jobs.filter(([, job]) => stepsOf(job).some((s) => typeof s?.run === 'string' && s.run.trim() === command));
  if (runsIt.length === 0) {
    return [
      `${file}: no step's run is the README's test command "${command}" (jobs.<id>.steps[].run must equal it, so CI runs what the README documents)`,
    ];
  }
  const problems = [];
  for (const [id, job] of runsIt) {
    const steps = stepsOf(job);
    const checkout = steps.find((s) => uses(s, 'actions/checkout'));
    if (!checkout) problems.push(`${file}: jobs.${id} runs the test command without an actions/checkout step`);
    else if (String(checkout.with?.['fetch-depth']) !== '0') {
      problems.push(
        `${file}: jobs.${id}: actions/checkout must set fetch-depth: 0 (the API gate reads the history); found ${checkout.with?.['fetch-depth'] ?? 'none (a shallow clone)'}`,
      );
    }
    const setupNode = steps.find((s) => uses(s, 'actions/setup-node'));
    if (String(setupNode?.with?.['node-version'] ?? '').replace(/\s/g, '') !== '${{matrix.node}}') {
      problems.push(`${file}: jobs.${id}: actions/setup-node must take node-version from \${{ matrix.node }}`);
    }
    const matrix = job?.strategy?.matrix?.node;
    const listed = (Array.isArray(matrix) ? matrix : []).map(String);
    const missing = nodeLines.filter((n) => !listed.includes(String(n)));
    if (missing.length > 0) {
      problems.push(
        `${file}: jobs.${id}.strategy.matrix.node is [${listed.join(', ')}]: Node ${missing.join(', ')} missing (every tested line: ${nodeLines.join(', ')})`,
      );
    }
  }
  return problems;
}

// pnpm's own commands: `pnpm install` is not a script.
const PNPM_COMMANDS = new Set(
  'add audit config create deploy dlx env exec fetch i import install licenses link list ls outdated pack patch patch-commit prune publish rebuild remove rm root setup store unlink up update why'.split(
    ' ',
  ),
);

/**
 * The root-package scripts a workflow runs with `pnpm <script>` or `pnpm run <script>`: in each
 * step's `run`, and in the `version` and `publish` inputs of changesets/action.
 * @param workflow the YAML text
 * @returns script names, in order of appearance, without repeats
 */
export function pnpmScriptsRun(workflow: string): string[] {
  const commands = [];
  for (const job of Object.values(parseWorkflow(workflow).jobs ?? {})) {
    for (const step of stepsOf(job)) {
      if (typeof step?.run === 'string') commands.push(step.run);
      if (uses(step, 'changesets/action')) commands.push(step.with?.version ?? '', step.with?.publish ?? '');
    }
  }
  const scripts: string[] = [];
  for (const segment of commands.join('\n').split(/&&|\|\||;|\n/)) {
    const m = /^pnpm\s+(?:run\s+)?([A-Za-z0-9][\w:.-]*)/.exec(segment.trim());
    const script = m?.[1];
    if (script !== undefined && !PNPM_COMMANDS.has(script) && !scripts.includes(script)) scripts.push(script);
  }
  return scripts;
}

/**
 * Every `pnpm <script>` a workflow runs must be a script of the root package.json.
 *   `scripts` is the root package.json's `scripts`
 * @returns problems naming the file and the missing script
 */
export function workflowScriptProblems({
  workflow,
  file,
  scripts,
}: {
  workflow: string;
  file: string;
  scripts: Record<string, string>;
}): string[] {
  return pnpmScriptsRun(workflow)
    .filter((name) => !Object.hasOwn(scripts, name))
    .map((name) => `${file}: runs "pnpm ${name}", but the root package.json has no script "${name}"`);
}
