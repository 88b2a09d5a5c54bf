import type { Tracer, TracerProvider } from '@opentelemetry/api';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import type { ToolResult } from '@runledger/core';
import { describe, expectTypeOf, it } from 'vitest';
import {
  type McpHealthContact,
  type McpServerConfig,
  McpServerRegistry,
  type McpTool,
  type McpTracingOptions,
  McpTransportType,
  parseServerConfig,
} from './index.js';

describe('the public surface of @runledger/mcp', () => {
  it('parseServerConfig takes JSON text or an object and gives frozen configs', () => {
    expectTypeOf(parseServerConfig).parameter(0).toEqualTypeOf<unknown>();
    expectTypeOf(parseServerConfig).returns.toEqualTypeOf<readonly McpServerConfig[]>();
  });

  it('the transport is a discriminated union on type', () => {
    const config = {} as McpServerConfig;
    if (config.transport.type === McpTransportType.STDIO) {
      expectTypeOf(config.transport.command).toEqualTypeOf<string>();
    } else {
      expectTypeOf(config.transport.url).toEqualTypeOf<string>();
      expectTypeOf(config.transport.bearerTokenEnv).toEqualTypeOf<string | undefined>();
    }
  });

  it('McpTool.execute resolves to a ToolResult and takes a signal and the recorded call id', () => {
    expectTypeOf<McpTool['execute']>().returns.toEqualTypeOf<Promise<ToolResult>>();
    expectTypeOf<McpTool['execute']>()
      .parameter(1)
      .toEqualTypeOf<{ readonly signal?: AbortSignal; readonly toolCallId?: string } | undefined>();
  });

  it('the registry hands out tools and health contacts', () => {
    expectTypeOf(McpServerRegistry.create).returns.toEqualTypeOf<McpServerRegistry>();
    expectTypeOf<McpServerRegistry['tools']>().returns.toEqualTypeOf<Promise<readonly McpTool[]>>();
    expectTypeOf<McpHealthContact>().toHaveProperty('latencyMs').toEqualTypeOf<number>();
  });

  it('tracing takes an OpenTelemetry Tracer or TracerProvider, and an SDK provider fits', () => {
    expectTypeOf<McpTracingOptions['tracer']>().toEqualTypeOf<Tracer | undefined>();
    expectTypeOf<McpTracingOptions['tracerProvider']>().toEqualTypeOf<TracerProvider | undefined>();
    expectTypeOf<McpTracingOptions['propagateContext']>().toEqualTypeOf<boolean | undefined>();
    const provider = new BasicTracerProvider();
    expectTypeOf({ tracerProvider: provider, propagateContext: true }).toExtend<McpTracingOptions>();
    expectTypeOf({ tracer: provider.getTracer('x') }).toExtend<McpTracingOptions>();
  });
});
