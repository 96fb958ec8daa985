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
