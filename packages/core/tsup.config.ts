import { packageTsupConfig } from '../../tsup.base.mjs';

export default packageTsupConfig(['src/index.ts', 'src/internal.ts']);
