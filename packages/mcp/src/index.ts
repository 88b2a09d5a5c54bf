export { McpConfigError } from './McpConfigError.js';
export type { McpHealthContact } from './McpHealthContact.js';
export {
  DEFAULT_MCP_DEADLINE_MS,
  type McpHttpTransportConfig,
  type McpServerConfig,
  type McpStdioTransportConfig,
} from './McpServerConfig.js';
export type { McpServerProblem } from './McpServerProblem.js';
export { McpServerRegistry, type McpServerRegistryOptions, type McpToolsOptions } from './McpServerRegistry.js';
export type { McpTracingOptions } from './McpTracingOptions.js';
export type { McpSkippedTool } from './McpSkippedTool.js';
export type { McpExecuteOptions, McpTool } from './McpTool.js';
export type { McpToolAnnotations } from './McpToolAnnotations.js';
export { MCP_LOCAL_TOOL_NAME_PATTERN, MCP_TOOL_IMPORT_LIMITS } from './McpToolImportLimits.js';
export { McpTransportType } from './McpTransportType.js';
export { parseServerConfig } from './parseServerConfig.js';
