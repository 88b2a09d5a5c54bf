import type { Options } from 'tsup';
export declare function packageTsupConfig(entry?: Options['entry']): Options | Options[] | ((overrideOptions: Options) => Options | Options[] | Promise<Options | Options[]>);
