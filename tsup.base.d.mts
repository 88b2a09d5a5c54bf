import type { Options } from 'tsup';
type Config = Options | Options[] | ((overrideOptions: Options) => Options | Options[] | Promise<Options | Options[]>);
export declare function packageTsupConfig(entry?: Options['entry']): Config;
declare const config: Config;
export default config;
