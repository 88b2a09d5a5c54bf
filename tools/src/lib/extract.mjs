// @ts-check
/**
 * Runs API Extractor for one package and returns its report text, its doc model and the
 * messages that fail the gate. Nothing is written beside the sources: the report and the
 * doc model go to a scratch folder, and the caller decides what to compare or copy.
 */
import { Extractor, ExtractorConfig, ExtractorLogLevel } from '@microsoft/api-extractor';
import { mkdtempSync, readFileSync, rmSync, mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * @typedef {object} GateMessage
 * @property {string} id        e.g. "ae-forgotten-export"
 * @property {string} text
 * @property {string} [where]   "file:line:col" when known
 */

/**
 * @typedef {object} ExtractResult
 * @property {string} report          the fresh API report (LF line endings)
 * @property {any} model              the parsed doc model (.api.json)
 * @property {GateMessage[]} errors   messages at log level "error" (closure rule, compiler errors, ...)
 * @property {GateMessage[]} warnings
 */

/** @param {import('@microsoft/api-extractor').ExtractorMessage} m @returns {GateMessage} */
function toGateMessage(m) {
  const where = m.sourceFilePath
    ? `${path.relative(process.cwd(), m.sourceFilePath)}:${m.sourceFileLine ?? 0}:${m.sourceFileColumn ?? 0}`
    : undefined;
  return { id: String(m.messageId), text: m.text, where };
}

/**
 * Runs the package's own api-extractor.json, with the report and doc model redirected.
 * @param {string} packageDir
 * @returns {ExtractResult}
 */
export function extractPackage(packageDir) {
  packageDir = path.resolve(packageDir);
  const configPath = path.join(packageDir, 'api-extractor.json');
  const configObject = ExtractorConfig.loadFile(configPath);
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'api-gate-'));
  mkdirSync(path.join(scratch, 'report'));
  try {
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
    rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * @param {ExtractorConfig} config
 * @returns {{errors: GateMessage[], warnings: GateMessage[]}}
 */
function invoke(config) {
  /** @type {GateMessage[]} */ const errors = [];
  /** @type {GateMessage[]} */ const warnings = [];
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
 * @param {string} packageDir
 * @param {string[]} siblingNames workspace packages this package depends on
 * @returns {GateMessage[]} errors found in this package's declarations
 */
export function crossPackageClosure(packageDir, siblingNames) {
  packageDir = path.resolve(packageDir);
  if (siblingNames.length === 0) return [];
  const base = ExtractorConfig.loadFile(path.join(packageDir, 'api-extractor.json'));
  const entryDir = path.join(packageDir, 'temp', 'api-closure');
  mkdirSync(entryDir, { recursive: true });
  const entry = path.join(entryDir, 'index.d.ts');
  const mainEntry = ExtractorConfig.prepare({
    configObject: base,
    configObjectFullPath: path.join(packageDir, 'api-extractor.json'),
    packageJsonFullPath: path.join(packageDir, 'package.json'),
  }).mainEntryPointFilePath;
  const ownEntry = path.relative(entryDir, mainEntry.replace(/\.d\.(m?)ts$/, '.$1js')).split(path.sep).join('/');
  const ownDist = path.dirname(mainEntry) + path.sep;
  writeFileSync(
    entry,
    [`export * from '${ownEntry}';`, ...siblingNames.map((n) => `export * from '${n}';`), ''].join('\n'),
  );
  try {
    const config = ExtractorConfig.prepare({
      configObject: {
        ...base,
        mainEntryPointFilePath: entry,
        bundledPackages: siblingNames,
        apiReport: { enabled: false, reportFileName: 'closure.api.md' },
        docModel: { enabled: false },
        dtsRollup: { enabled: false },
        tsdocMetadata: { enabled: false },
        messages: {
          compilerMessageReporting: { default: { logLevel: /** @type {any} */ ('none') } },
          tsdocMessageReporting: { default: { logLevel: /** @type {any} */ ('none') } },
          extractorMessageReporting: {
            default: { logLevel: /** @type {any} */ ('none') },
            'ae-incompatible-release-tags': { logLevel: /** @type {any} */ ('error'), addToApiReportFile: false },
          },
        },
      },
      configObjectFullPath: path.join(packageDir, 'api-extractor.json'),
      packageJsonFullPath: path.join(packageDir, 'package.json'),
    });
    /** @type {GateMessage[]} */ const errors = [];
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
