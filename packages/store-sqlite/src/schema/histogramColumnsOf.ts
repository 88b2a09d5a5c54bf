// The histogram columns of a health rollup table: one integer count per slot, h0 … h<slots-1>.

/**
 * The column definitions of `slots` histogram counts, one per line of a CREATE TABLE.
 *
 * @internal
 */
export const histogramColumnsOf = (slots: number): string =>
  Array.from({ length: slots }, (_, k) => `h${k} INTEGER NOT NULL DEFAULT 0`).join(',\n  ');
