/** One descriptor for every brand: nothing to allocate per branded object. */
const BRAND_PROPERTY: PropertyDescriptor = Object.freeze({ value: true, enumerable: false, writable: false, configurable: false });

/**
 * Marks an object with a registry symbol so that it is recognised across two copies of the
 * package (two `node_modules` folders, two `vm` realms), where `instanceof` on the class alone
 * would fail.
 *
 * @internal
 */
export function setBrand(target: object, brand: symbol): void {
  Object.defineProperty(target, brand, BRAND_PROPERTY);
}

/**
 * Tells whether a value carries the given registry brand.
 *
 * @internal
 */
export function hasBrand(value: unknown, brand: symbol): boolean {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[brand] === true;
}
