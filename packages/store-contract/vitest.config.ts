import { packageVitestConfig } from '../../vitest.base.mjs';

export default packageVitestConfig();
