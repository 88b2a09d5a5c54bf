import { packageVitestConfig } from '../../vitest.base.mjs';

export default packageVitestConfig({ globalSetup: ['./test/globalSetup.ts'], testTimeout: 30000 });
