import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ciWorkflowProblems, pnpmScriptsRun, readmeCommands, workflowScriptProblems } from '../src/lib/workflowDrift.ts';
import { formatWorkflowProblem, lintWorkflow, lintWorkflowDir, workflowFiles } from '../src/lib/workflowLint.ts';
import { ROOT } from './helpers.js';

const WORKFLOWS = path.join(ROOT, '.github', 'workflows');
const CI = path.join(WORKFLOWS, 'ci.yml');
const README = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
const ROOT_SCRIPTS: Record<string, string> = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).scripts;
/** The Node lines the packages are tested on (issue 14: 20, and today's 22 and 24). */
const NODE_LINES = [20, 22, 24];

const temps: string[] = [];
afterAll(() => temps.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** A throwaway `.github/workflows` folder holding the given files. */
function workflowsDir(files: Record<string, string>): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'runledger-workflows-'));
  temps.push(dir);
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text);
  return dir;
}

const ciText = readFileSync(CI, 'utf8');

describe('the GitHub workflows pass actionlint', () => {
  const files = workflowFiles(WORKFLOWS);

  it('finds every workflow in .github/workflows (ci.yml and release.yml at least)', () => {
    expect(files.map((f) => path.basename(f))).toEqual(expect.arrayContaining(['ci.yml', 'release.yml']));
  });

  it.each(files.map((f) => [path.relative(ROOT, f), f]))('%s has no actionlint problem', async (name, file) => {
    const problems = await lintWorkflow(readFileSync(file, 'utf8'), name);
    expect(problems.map(formatWorkflowProblem)).toEqual([]);
  });
});

describe('actionlint rejects a broken workflow, naming the problem', () => {
  const broken = [
    'on: [push]',
    'jobs:',
    '  test:',
    '    runs_on: ubuntu-24.04', // misspelled runs-on
    '    needs: [build]', // no job "build"
    '    strategy:',
    '      matrix:',
    '        node: [20, 22]',
    '    steps:',
    '      - uses: actions/setup-node@v4',
    '        with:',
    '          node-version: ${{ matrix.nodes }}', // no matrix key "nodes"
    '      - run: echo ${{ github.event.pull_request.number',
    '',
  ].join('\n');

  it('a new file in the folder is linted: every problem with its file, line and rule', async () => {
    const dir = workflowsDir({
      'ok.yml': 'on: [push]\njobs:\n  a:\n    runs-on: ubuntu-24.04\n    steps:\n      - run: "true"\n',
      'broken.yaml': broken,
    });
    const lines = (await lintWorkflowDir(dir)).map(formatWorkflowProblem);
    expect(lines.every((l) => l.startsWith('broken.yaml:'))).toBe(true);
    expect(lines).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          /^broken\.yaml:4:5: unexpected key "runs_on" for "job" section\. expected one of .*"runs-on".* \[syntax-check\]$/,
        ),
        expect.stringMatching(/^broken\.yaml:3:3: "runs-on" section is missing in job "test" \[syntax-check\]$/),
        expect.stringMatching(/^broken\.yaml:3:3: job "test" needs job "build" which does not exist in this workflow \[job-needs\]$/),
        expect.stringMatching(/^broken\.yaml:12:\d+: property "nodes" is not defined in object type \{node: number\} \[expression\]$/),
        expect.stringMatching(/^broken\.yaml:13:\d+: .*(unexpected EOF|not closed).* \[expression\]$/),
      ]),
    );
  });

  it('an unknown input of a popular action and an unknown runner label are errors too', async () => {
    const text = ciText.replace('runs-on: ubuntu-24.04', 'runs-on: ubuntu-24.40').replace('node-version:', 'node-versions:');
    const messages = (await lintWorkflow(text, 'ci.yml')).map((p) => p.message);
    expect(messages).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^label "ubuntu-24\.40" is unknown/),
        expect.stringMatching(/^input "node-versions" is not defined in action "actions\/setup-node@v4"/),
      ]),
    );
  });
});

describe('ci.yml runs the README test command on every tested Node line', () => {
  it("the README's second command is its test command", () => {
    const command = readmeCommands(README)[1];
    expect(command).toMatch(/&& pnpm test$/);
  });

  it('ci.yml follows the README', () => {
    expect(ciWorkflowProblems({ workflow: ciText, file: 'ci.yml', readme: README, nodeLines: NODE_LINES })).toEqual([]);
  });

  it('a CI step that runs something else than the README says is refused', () => {
    const command = readmeCommands(README)[1]!;
    const drifted = ciText.replace(command, command.replace(/pnpm test$/, 'pnpm test:unit'));
    expect(drifted).not.toBe(ciText);
    expect(ciWorkflowProblems({ workflow: drifted, file: 'ci.yml', readme: README, nodeLines: NODE_LINES })).toEqual([
      `ci.yml: no step's run is the README's test command "${command}" (jobs.<id>.steps[].run must equal it, so CI runs what the README documents)`,
    ]);
  });

  it('a README whose test command changed no longer matches ci.yml (the command is read, not assumed)', () => {
    const readme = README.replace('--frozen-lockfile && pnpm test\n', '--frozen-lockfile && pnpm test:all\n');
    expect(readme).not.toBe(README);
    expect(ciWorkflowProblems({ workflow: ciText, file: 'ci.yml', readme, nodeLines: NODE_LINES })).toEqual([
      expect.stringContaining(
        'no step\'s run is the README\'s test command "npm install -g pnpm@10 && pnpm install --frozen-lockfile && pnpm test:all"',
      ),
    ]);
  });

  it('a matrix without Node 24, a shallow checkout and a fixed node-version are refused', () => {
    const drifted = ciText
      .replace('node: [20, 22, 24]', 'node: [20, 22]')
      .replace('fetch-depth: 0', 'fetch-depth: 1')
      .replace('node-version: ${{ matrix.node }}', 'node-version: 20');
    expect(ciWorkflowProblems({ workflow: drifted, file: 'ci.yml', readme: README, nodeLines: NODE_LINES })).toEqual([
      'ci.yml: jobs.test: actions/checkout must set fetch-depth: 0 (the API gate reads the history); found 1',
      'ci.yml: jobs.test: actions/setup-node must take node-version from ${{ matrix.node }}',
      'ci.yml: jobs.test.strategy.matrix.node is [20, 22]: Node 24 missing (every tested line: 20, 22, 24)',
    ]);
  });
});

describe('the workflows run only scripts the root package.json has', () => {
  const workflows = workflowFiles(WORKFLOWS).map((file) => ({ file: path.relative(ROOT, file), workflow: readFileSync(file, 'utf8') }));

  it('reads pnpm scripts from run steps and from the changesets action, not pnpm commands', () => {
    const found = pnpmScriptsRun(
      [
        'jobs:',
        '  a:',
        '    steps:',
        '      - run: npm install -g pnpm@10 && pnpm install --frozen-lockfile && pnpm test',
        '      - run: |',
        '          pnpm run api:gate; pnpm --filter x test',
        '      - uses: changesets/action@v1',
        '        with: { version: pnpm release:version, publish: pnpm release:publish }',
      ].join('\n'),
    );
    expect(found).toEqual(['test', 'api:gate', 'release:version', 'release:publish']);
  });

  it('a workflow calling a script that does not exist is refused, naming it', () => {
    expect(
      workflowScriptProblems({ workflow: 'jobs:\n  a:\n    steps:\n      - run: pnpm tset\n', file: 'x.yml', scripts: ROOT_SCRIPTS }),
    ).toEqual(['x.yml: runs "pnpm tset", but the root package.json has no script "tset"']);
  });

  it('every script the workflows run exists, the release scripts included', () => {
    const problems = workflows.flatMap((w) => workflowScriptProblems({ ...w, scripts: ROOT_SCRIPTS }));
    expect(problems).toEqual([]);
    expect(Object.keys(ROOT_SCRIPTS)).toEqual(expect.arrayContaining(['release:version', 'release:publish']));
  });
});
