// Types of fixture-server.mjs (plain ESM so that `node` runs it without a build).
import type { McpServer } from '@modelcontextprotocol/server';

export declare const MALFORMED_MARKER: string;
export declare const THROWS_MESSAGE: string;
export declare const THROWS_CODE: number;
export declare const BIG_TEXT_LENGTH: number;
export declare const MUTE_EXIT_MS: number;
export declare const SLOW_INVALID_ARGUMENTS: string;
export declare function createFixtureServer(options?: { eventsFile?: string; onCrash?: () => void; onReset?: () => void }): McpServer;
export declare function withWireFaults<T extends { send(message: unknown, options?: unknown): Promise<void> }>(transport: T): T;
