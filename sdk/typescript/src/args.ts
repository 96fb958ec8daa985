// Checks at the SDK's surface, so a wrong argument fails at the call that passed it, naming
// it, rather than deep inside hashing (`s.charCodeAt is not a function`) or as a 422 from the
// server long after. A wrong type is a TypeError, a value out of its range a RangeError; the
// Python SDK words the same checks the same way (TypeError and ValueError).

/** What a value is, in the words the messages use. */
export function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

export function requireString(where: string, name: string, value: unknown): string {
  if (typeof value !== "string") throw new TypeError(`${where}: ${name} must be a string, not ${kindOf(value)}`);
  return value;
}

/** The server's length of an id: UTF-16 code units, at most 256. */
export function requireId(where: string, name: string, value: unknown): string {
  const id = requireString(where, name, value);
  if (id.length < 1 || id.length > 256)
    throw new RangeError(`${where}: ${name} must be 1 to 256 characters, not ${id.length}`);
  return id;
}

export function optionalDensity(where: string, name: string, value: unknown): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "number") throw new TypeError(`${where}: ${name} must be a number, not ${kindOf(value)}`);
  if (!(value >= 0 && value <= 1)) throw new RangeError(`${where}: ${name} must be from 0 to 1, not ${value}`);
  return value;
}

export function optionalCount(where: string, name: string, value: unknown): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "number") throw new TypeError(`${where}: ${name} must be a number, not ${kindOf(value)}`);
  if (!Number.isSafeInteger(value) || value < 0)
    throw new RangeError(`${where}: ${name} must be a whole number of 0 or more, not ${value}`);
  return value;
}

export function optionalObject(where: string, name: string, value: unknown): Record<string, unknown> | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new TypeError(`${where}: ${name} must be an object, not ${kindOf(value)}`);
  return value as Record<string, unknown>;
}

export function requireFunction<T extends (...args: never[]) => unknown>(
  where: string,
  name: string,
  value: unknown,
): T {
  if (typeof value !== "function") throw new TypeError(`${where}: ${name} must be a function, not ${kindOf(value)}`);
  return value as T;
}

export const STRATEGIES = ["halt", "restore", "accept_loss"] as const;
export type Strategy = (typeof STRATEGIES)[number];

export function requireStrategy(where: string, name: string, value: unknown): Strategy {
  const strategy = requireString(where, name, value);
  if (!(STRATEGIES as readonly string[]).includes(strategy))
    throw new RangeError(
      `${where}: ${name} must be "halt", "restore" or "accept_loss", not ${JSON.stringify(strategy)}`,
    );
  return strategy as Strategy;
}
