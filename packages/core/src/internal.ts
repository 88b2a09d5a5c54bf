/**
 * `@runledger/core/internal`: helpers that runledger's own packages share (`@runledger/trace`,
 * `@runledger/mcp`, `@runledger/ai-sdk`, …), so that each exists once.
 *
 * @remarks
 * For runledger's own packages only. Nothing here is covered by semver: any export may change
 * or go in any release, minor or patch. Applications use the main entry, `@runledger/core`.
 * Each export is tagged `@internal`. See docs/architecture.md.
 *
 * @packageDocumentation
 */
export { type CrossRealmBrand, crossRealmBrand, type PrototypeBrandRule } from './crossRealmBrand.js';
export { seededRandom } from './seededRandom.js';
export { claimToolSpan, offerToolSpan, type OpenToolSpan, TOOL_SPAN_HANDOFF, withdrawToolSpan } from './toolSpanHandoff.js';
