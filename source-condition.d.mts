export declare const SOURCE_CONDITION: '@runledger/source';
export declare function exportedSources(dir?: string): string[];
