import { packageTsupConfig } from '../../tsup.base.mjs';

export default packageTsupConfig();
