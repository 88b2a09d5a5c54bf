import type { InlineConfig } from 'vitest/node';
import type { UserConfig } from 'vitest/config';
export declare const SOURCE_CONDITION: '@runledger/source';
export declare function packageVitestConfig(extra?: InlineConfig): UserConfig;
declare const config: UserConfig;
export default config;
