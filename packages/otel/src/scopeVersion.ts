import { createRequire } from 'node:module';

/** This package's version: the instrumentation scope version of its spans (read from dist/ and src/ alike). */
export const SCOPE_VERSION: string = (createRequire(import.meta.url)('../package.json') as { version: string }).version;
