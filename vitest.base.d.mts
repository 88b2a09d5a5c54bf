import type { InlineConfig } from 'vitest/node';
import type { UserConfig } from 'vitest/config';
export declare function packageVitestConfig(extra?: InlineConfig): UserConfig;
