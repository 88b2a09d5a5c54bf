/** One descriptor for every brand: nothing to allocate per branded object. */
const BRAND_PROPERTY: PropertyDescriptor = Object.freeze({ value: true, enumerable: false, writable: false, configurable: false });

/** The ordinary `instanceof` (the prototype chain), for a subclass of a branded class. */
const ordinaryHasInstance = Function.prototype[Symbol.hasInstance];

/**
 * Marks an object with a registry symbol so that it is recognised across two copies of the
 * package (two `node_modules` folders, two `vm` realms), where `instanceof` on the class alone
 * would fail.
 */
function setBrand(target: object, brand: symbol): void {
  Object.defineProperty(target, brand, BRAND_PROPERTY);
}

/** Tells whether a value carries the given registry brand. */
function hasBrand(value: unknown, brand: symbol): boolean {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[brand] === true;
}

/**
 * The cross-realm identity of one class, made by {@link crossRealmBrand}: what the class's
 * constructor, its static `is` and its static `[Symbol.hasInstance]` call.
 *
 * @internal
 */
export interface CrossRealmBrand<T extends object> {
  /**
   * Marks a new instance of the class (a non-enumerable own property); call it in the constructor.
   * A brand made with a {@link PrototypeBrandRule} marks the class's prototype instead, once, in the
   * class's static block.
   */
  mark(instance: T): void;
  /**
   * The body of the class's static `is`: whether a value was marked by the class, in this copy
   * of its package or in another one (a second `node_modules` folder, a `vm` realm).
   */
  is(value: unknown): value is T;
  /**
   * The body of the class's static `[Symbol.hasInstance]`, given `this`: on the class itself it is
   * {@link CrossRealmBrand.is}, so `instanceof` works across copies too; on a subclass (which
   * inherits the static) it is the ordinary prototype-chain test, so `instanceof Subclass` is
   * true only for the subclass's own instances.
   */
  hasInstance(receiver: unknown, value: unknown): boolean;
}

/**
 * How a brand that lives on the class's prototype (marked once, nothing per instance: for values
 * made on every tool call) tells an instance from the prototype itself or an
 * `Object.create(prototype)`: an instance is frozen and has this field of its own.
 *
 * @internal
 */
export interface PrototypeBrandRule {
  readonly ownField: string;
}

/**
 * Makes the brand of a class whose instances must be recognised across copies of its package:
 * the one way every branded class of runledger does it (its errors, ToolResult, ToolArtifact,
 * WriteTarget).
 *
 * @remarks
 * The brand says "an instance of this class, made by any copy". Whether a value was made by *this*
 * copy's constructor (which a prototype or a cast cannot forge) is a private field's question: a
 * class that must accept only its own copy's instances asks `#field in value` as well.
 *
 * @example
 * ```ts
 * const BRAND = crossRealmBrand('@runledger/trace/RunStepError', () => RunStepError);
 *
 * export class RunStepError extends Error {
 *   constructor(message: string) {
 *     super(message);
 *     BRAND.mark(this);
 *   }
 *   static is(value: unknown): value is RunStepError {
 *     return BRAND.is(value);
 *   }
 *   static override [Symbol.hasInstance](value: unknown): boolean {
 *     return BRAND.hasInstance(this, value);
 *   }
 * }
 * ```
 *
 * @param key - The registry key (`Symbol.for`), `@runledger/<package>/<Class>`. Every released
 * version must keep it: it is what an older or newer copy of the package recognises.
 * @param owner - The class, read lazily (the brand is made before the class it brands).
 * @param onPrototype - Mark the prototype, not each instance, and recognise instances by this rule.
 * @internal
 */
export function crossRealmBrand<T extends object>(
  key: string,
  owner: () => { readonly prototype: T },
  onPrototype?: PrototypeBrandRule,
): CrossRealmBrand<T> {
  const brand = Symbol.for(key);
  const is =
    onPrototype === undefined
      ? (value: unknown): value is T => hasBrand(value, brand)
      : (value: unknown): value is T =>
          hasBrand(value, brand) && Object.isFrozen(value) && Object.hasOwn(value as object, onPrototype.ownField);
  return Object.freeze({
    mark(instance: T): void {
      setBrand(instance, brand);
    },
    is,
    hasInstance(receiver: unknown, value: unknown): boolean {
      return receiver === owner() ? is(value) : ordinaryHasInstance.call(receiver, value);
    },
  });
}
