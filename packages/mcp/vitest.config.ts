import { packageVitestConfig } from '../../vitest.base.mjs';

// The resource tests measure the heap after a full collection (global.gc).
export default packageVitestConfig({ execArgv: ['--expose-gc'] });
