export { type OtelRunStoreOptions, otelRunStore } from './otelRunStore.js';
export { type ExportRunsOtlpOptions, type ExportRunsOtlpProgress, type ExportRunsOtlpResult, exportRunsOtlp } from './exportRunsOtlp.js';
export { type OtelMetricsRunStoreOptions, otelMetricsRunStore } from './otelMetricsRunStore.js';
export {
  type ExportRunMetricsOtlpOptions,
  type ExportRunMetricsOtlpProgress,
  type ExportRunMetricsOtlpResult,
  exportRunMetricsOtlp,
} from './exportRunMetricsOtlp.js';
