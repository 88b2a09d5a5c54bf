export type { AiSdkRun } from './AiSdkRun.js';
export type { McpToolApprovalDecision } from './approvalDecision.js';
export { McpToolCallError } from './McpToolCallError.js';
export { McpToolNotApprovedError } from './McpToolNotApprovedError.js';
export { type McpToolApprovalRequest, mcpToolSet, type McpToolSetOptions } from './mcpToolSet.js';
export { recordingMiddleware } from './recordingMiddleware.js';
export { recordingToolCallRepair } from './toolCallRepair.js';
