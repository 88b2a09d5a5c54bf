export { ArtifactType, isArtifactType } from './ArtifactType.js';
export { type ChannelBounds, DEFAULT_CHANNEL_BOUNDS } from './ChannelBounds.js';
export { McpTransportErrorCode, McpTransportException, type McpTransportExceptionOptions } from './McpTransportException.js';
export { ToolArtifact } from './ToolArtifact.js';
export { isToolFailureCause, TOOL_FAILURE_CAUSES, ToolFailureCause } from './ToolFailureCause.js';
export { isToolOutcome, TOOL_OUTCOMES, ToolOutcome } from './ToolOutcome.js';
export { ToolResult } from './ToolResult.js';
export { isWriteKind, WriteKind } from './WriteKind.js';
export { WriteTarget } from './WriteTarget.js';
