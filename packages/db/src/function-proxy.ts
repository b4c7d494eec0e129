// biome-ignore lint/complexity/noBannedTypes: any function property of the driver's client
type AnyFunction = Function;

/**
 * A proxy of `target` whose function properties come back as `wrap` makes them, each made once on first
 * use: drizzle reads `unsafe` for every statement, and a wrapper built per read cost each statement a
 * closure or a bound function. Made anew if the property ever holds another function.
 */
export function withWrappedFunctions<T extends object>(
  target: T,
  wrap: (property: string | symbol, value: AnyFunction) => unknown,
): T {
  const made = new Map<string | symbol, { value: AnyFunction; wrapper: unknown }>();
  return new Proxy(target, {
    get(object, property, receiver) {
      const value: unknown = Reflect.get(object, property, receiver);
      if (typeof value !== 'function') return value;
      const known = made.get(property);
      if (known?.value === value) return known.wrapper;
      const wrapper = wrap(property, value);
      made.set(property, { value, wrapper });
      return wrapper;
    },
  });
}
