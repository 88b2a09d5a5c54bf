/** A readable unified diff of two report texts (uses the `diff` package API Extractor ships with). */
import { createRequire } from 'node:module';

const requireFromExtractor = createRequire(createRequire(import.meta.url).resolve('@microsoft/api-extractor'));
const jsdiff: { createTwoFilesPatch: (a: string, b: string, x: string, y: string, h1?: string, h2?: string, o?: any) => string } =
  requireFromExtractor('diff');
export function unifiedDiff(before: string, after: string, beforeLabel: string, afterLabel: string) {
  const patch = jsdiff.createTwoFilesPatch(beforeLabel, afterLabel, before, after, '', '', { context: 3 });
  return patch
    .split('\n')
    .filter((l) => !/^=+$/.test(l) && !l.startsWith('Index:'))
    .join('\n')
    .replace(/\t$/gm, '');
}
