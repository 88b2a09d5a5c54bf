/**
 * Runs API Extractor for one package and returns its report text, its doc model and the
 * messages that fail the gate. Nothing is written beside the sources: the report and the
 * doc model go to a scratch folder, and the caller decides what to compare or copy.
 */
import { Extractor, ExtractorConfig, ExtractorLogLevel } from '@microsoft/api-extractor';
import { mkdtempSync, readFileSync, rmSync, mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ExtractorMessage } from '@microsoft/api-extractor';
import { writeEntryTsconfig } from './writeEntryTsconfig.ts';
import type { SiblingEntry } from './writeEntryTsconfig.ts';

export interface GateMessage {
  /** e.g. "ae-forgotten-export" */
  id: string;
  text: string;
  /** "file:line:col" when known */
  where?: string;
}

export interface ExtractResult {
  /** the fresh API report (LF line endings) */
  report: string;
  /** the parsed doc model (.api.json) */
  model: any;
  /** messages at log level "error" (closure rule, compiler errors, ...) */
  errors: GateMessage[];
  warnings: GateMessage[];
}

function toGateMessage(m: ExtractorMessage): GateMessage {
  const where = m.sourceFilePath
    ? `${path.relative(process.cwd(), m.sourceFilePath)}:${m.sourceFileLine ?? 0}:${m.sourceFileColumn ?? 0}`
    : undefined;
  return { id: String(m.messageId), text: m.text, where };
}

/**
 * Runs the package's own api-extractor.json, with the report and doc model redirected.
 * @param entryTypes the declarations of the entry point to analyse, relative to the package
 *   folder (a subpath entry, e.g. "dist/store/index.d.ts"); default: the config's main entry
 * @param entries this entry point and the package's other ones: imported by the package's name, the
 *   others are external modules to this one, as for a consumer (lib/writeEntryTsconfig.ts)
 */
export function extractPackage(
  packageDir: string,
  entryTypes?: string,
  entries: { own: SiblingEntry; others: readonly SiblingEntry[] } = { own: { specifier: '', types: '' }, others: [] },
): ExtractResult {
  packageDir = path.resolve(packageDir);
  const configPath = path.join(packageDir, 'api-extractor.json');
  const configObject = ExtractorConfig.loadFile(configPath);
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'api-gate-'));
  const scratchFolders = [scratch];
  mkdirSync(path.join(scratch, 'report'));
  try {
    if (entryTypes !== undefined) configObject.mainEntryPointFilePath = path.join(packageDir, entryTypes);
    if (entries.others.length > 0) {
      const packageName = JSON.parse(readFileSync(path.join(packageDir, 'package.json'), 'utf8')).name as string;
      mkdirSync(path.join(packageDir, 'temp'), { recursive: true });
      const entryScratch = mkdtempSync(path.join(packageDir, 'temp', 'api-entry-'));
      scratchFolders.push(entryScratch);
      const tsconfigFilePath = writeEntryTsconfig(
        packageDir,
        packageName,
        path.join(packageDir, 'tsconfig.json'),
        [entries.own],
        entries.others,
        entryScratch,
      );
      configObject.compiler = { ...configObject.compiler, tsconfigFilePath };
    }
    configObject.apiReport = {
      ...configObject.apiReport,
      enabled: true,
      reportFolder: path.join(scratch, 'report'),
      reportTempFolder: path.join(scratch, 'report-temp'),
    };
    configObject.docModel = {
      ...configObject.docModel,
      enabled: true,
      apiJsonFilePath: path.join(scratch, 'model.api.json'),
    };
    const config = ExtractorConfig.prepare({
      configObject,
      configObjectFullPath: configPath,
      packageJsonFullPath: path.join(packageDir, 'package.json'),
    });
    const { errors, warnings } = invoke(config);
    const reportFile = path.join(scratch, 'report', path.basename(config.reportFilePath));
    let report = '';
    let model = null;
    try {
      report = readFileSync(reportFile, 'utf8').replace(/\r\n/g, '\n');
      model = JSON.parse(readFileSync(path.join(scratch, 'model.api.json'), 'utf8'));
    } catch {
      if (errors.length === 0) errors.push({ id: 'api-gate', text: 'API Extractor produced no report' });
    }
    return { report, model, errors, warnings };
  } finally {
    for (const folder of scratchFolders) rmSync(folder, { recursive: true, force: true });
  }
}
function invoke(config: ExtractorConfig): { errors: GateMessage[]; warnings: GateMessage[] } {
  const errors: GateMessage[] = [];
  const warnings: GateMessage[] = [];
  Extractor.invoke(config, {
    localBuild: true,
    showVerboseMessages: false,
    messageCallback: (message) => {
      if (message.logLevel === ExtractorLogLevel.Error) errors.push(toGateMessage(message));
      else if (message.logLevel === ExtractorLogLevel.Warning) warnings.push(toGateMessage(message));
      message.handled = true;
    },
  });
  return { errors, warnings };
}

/**
 * Cross-package closure: a second pass whose entry point re-exports the package together with
 * its workspace dependencies, with those dependencies bundled (bundledPackages). A sibling's
 * `@internal` export then becomes part of the analysed surface, and API Extractor's own
 * `ae-incompatible-release-tags` reports any `@public` signature of this package that mentions it.
 * Every entry point of a sibling is re-exported (its main entry and subpaths such as
 * `@runledger/core/internal`), and the pass runs once per entry point of this package.
 * @param siblings workspace packages this package depends on, and the specifiers of their entry points
 *   (for a subpath entry also the package's own main entry, whose names it reaches as external ones)
 * @param entryTypes this package's entry point (see {@link extractPackage}); default: the main entry
 * @param ownEntries the package's entry points, each read from its declarations as part of the
 *   analysis (lib/writeEntryTsconfig.ts), whatever the package's tsconfig maps its name to
 * @returns errors found in this package's declarations
 */
export function crossPackageClosure(
  packageDir: string,
  siblings: { names: string[]; specifiers: string[] },
  entryTypes?: string,
  ownEntries: readonly SiblingEntry[] = [],
): GateMessage[] {
  packageDir = path.resolve(packageDir);
  const siblingNames = siblings.names;
  if (siblings.specifiers.length === 0) return [];
  const base = ExtractorConfig.loadFile(path.join(packageDir, 'api-extractor.json'));
  const entryDir = path.join(packageDir, 'temp', 'api-closure');
  mkdirSync(entryDir, { recursive: true });
  const entry = path.join(entryDir, 'index.d.ts');
  const mainEntry = ExtractorConfig.prepare({
    configObject: base,
    configObjectFullPath: path.join(packageDir, 'api-extractor.json'),
    packageJsonFullPath: path.join(packageDir, 'package.json'),
  }).mainEntryPointFilePath;
  const analysed = entryTypes === undefined ? mainEntry : path.join(packageDir, entryTypes);
  const ownEntry = path
    .relative(entryDir, analysed.replace(/\.d\.(m?)ts$/, '.$1js'))
    .split(path.sep)
    .join('/');
  const ownDist = path.dirname(mainEntry) + path.sep;
  writeFileSync(entry, [`export * from '${ownEntry}';`, ...siblings.specifiers.map((s) => `export * from '${s}';`), ''].join('\n'));
  try {
    const packageName = JSON.parse(readFileSync(path.join(packageDir, 'package.json'), 'utf8')).name as string;
    const tsconfigFilePath =
      ownEntries.length > 0
        ? writeEntryTsconfig(packageDir, packageName, path.join(packageDir, 'tsconfig.json'), ownEntries, [], entryDir)
        : undefined;
    const config = ExtractorConfig.prepare({
      configObject: {
        ...base,
        ...(tsconfigFilePath === undefined ? {} : { compiler: { ...base.compiler, tsconfigFilePath } }),
        mainEntryPointFilePath: entry,
        bundledPackages: siblingNames,
        apiReport: { enabled: false, reportFileName: 'closure.api.md' },
        docModel: { enabled: false },
        dtsRollup: { enabled: false },
        tsdocMetadata: { enabled: false },
        messages: {
          compilerMessageReporting: { default: { logLevel: ExtractorLogLevel.None } },
          tsdocMessageReporting: { default: { logLevel: ExtractorLogLevel.None } },
          extractorMessageReporting: {
            default: { logLevel: ExtractorLogLevel.None },
            'ae-incompatible-release-tags': { logLevel: ExtractorLogLevel.Error, addToApiReportFile: false },
          },
        },
      },
      configObjectFullPath: path.join(packageDir, 'api-extractor.json'),
      packageJsonFullPath: path.join(packageDir, 'package.json'),
    });
    const errors: GateMessage[] = [];
    Extractor.invoke(config, {
      localBuild: true,
      messageCallback: (message) => {
        if (
          message.logLevel === ExtractorLogLevel.Error &&
          message.messageId === 'ae-incompatible-release-tags' &&
          message.sourceFilePath?.startsWith(ownDist)
        ) {
          errors.push(toGateMessage(message));
        }
        message.handled = true;
      },
    });
    return errors;
  } finally {
    rmSync(entryDir, { recursive: true, force: true });
  }
}
