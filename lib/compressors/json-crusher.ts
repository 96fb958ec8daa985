// A JSON crusher as agents write them: each pass drops the field that costs the most bytes
// (over every object that has it) and halves every long array, so that after a few passes it
// reaches fields the consumer needs. Deterministic: the same input crushes the same way.

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

function fieldCosts(value: Json, costs: Map<string, number>): void {
  if (Array.isArray(value)) {
    for (const item of value) fieldCosts(item, costs);
  } else if (value !== null && typeof value === "object") {
    for (const [key, inner] of Object.entries(value)) {
      costs.set(key, (costs.get(key) ?? 0) + JSON.stringify(inner).length + key.length);
      fieldCosts(inner, costs);
    }
  }
}

function without(value: Json, drop: string, keepItems: number): Json {
  if (Array.isArray(value)) {
    const kept = value.length > keepItems ? value.slice(0, Math.max(keepItems, Math.ceil(value.length / 2))) : value;
    return kept.map((item) => without(item, drop, keepItems));
  }
  if (value !== null && typeof value === "object") {
    const out: { [key: string]: Json } = {};
    for (const [key, inner] of Object.entries(value)) if (key !== drop) out[key] = without(inner, drop, keepItems);
    return out;
  }
  return value;
}

/**
 * One pass: the costliest field gone everywhere (ties broken by name), arrays longer than
 * `keepItems` halved. Fields named in `protect` are never the one dropped, which is how an
 * agent that knows its schema stays healthy; one that does not protects nothing.
 */
export function crushJson(text: string, options: { protect?: readonly string[]; keepItems?: number } = {}): string {
  const value = JSON.parse(text) as Json;
  const costs = new Map<string, number>();
  fieldCosts(value, costs);
  const protect = new Set(options.protect ?? []);
  let drop: string | null = null;
  let most = -1;
  for (const [key, cost] of [...costs].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (!protect.has(key) && cost > most) {
      drop = key;
      most = cost;
    }
  }
  return JSON.stringify(without(value, drop ?? "", options.keepItems ?? 4));
}

function isEmpty(value: Json): boolean {
  if (value === null || value === "" || value === 0 || value === false) return true;
  if (Array.isArray(value)) return value.length === 0;
  return typeof value === "object" && Object.keys(value).length === 0;
}

function withoutEmpty(value: Json): Json {
  if (Array.isArray(value)) return value.map(withoutEmpty);
  if (value !== null && typeof value === "object") {
    const out: { [key: string]: Json } = {};
    for (const [key, inner] of Object.entries(value)) if (!isEmpty(inner)) out[key] = withoutEmpty(inner);
    return out;
  }
  return value;
}

/**
 * A minifier's favourite pass: every field whose value is empty (null, "", 0, false, [] or {})
 * dropped, on the theory that absent means empty. It does not know which zeros the consumer
 * needs to see: a required field holding 0 goes too.
 */
export function dropEmpty(text: string): string {
  return JSON.stringify(withoutEmpty(JSON.parse(text) as Json));
}
