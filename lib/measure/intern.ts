// Interning: strings (or ranges of a string) and sequences of small integers to dense integer
// ids, through open-addressing tables of 32-bit FNV-1a hashes. A hash only finds a candidate;
// every hit is confirmed by comparing the characters (or the integers), so ids are exact and
// answers never depend on a collision. This is what lets the measurement work on ids and typed
// arrays instead of building a string or an object per token.

export const FNV_PRIME = 16777619;

/**
 * Strings are hashed as FNV-1a hashes them, with a basis and a multiplier drawn once per process.
 * For FNV-1a's own constants, strings that share a hash can be made at will (blocks of letters
 * that leave it in the same state, found by the birthday bound and chained), and a table that
 * probes them one by one turns linear work quadratic (bench:measure's crafted tokens). A new
 * basis alone does not stop it (such blocks still collide from most states); an unknown
 * multiplier does. Ids, and so answers, never depended on where a string lands.
 */
export const FNV_OFFSET = (0x811c9dc5 ^ randomInt32()) | 0;
export const STRING_MULTIPLIER = randomMultiplier();

/** An odd multiplier of at least 2^24 with at least eight bits set: a multiplicative hash's. */
function randomMultiplier(): number {
  for (;;) {
    const m = randomInt32() | 1;
    let bits = 0;
    for (let x = m >>> 0; x !== 0; x >>>= 1) bits += x & 1;
    if (m >>> 0 >= 2 ** 24 && bits >= 8) return m;
  }
}

function randomInt32(): number {
  const crypto = (globalThis as { crypto?: { getRandomValues(a: Int32Array): Int32Array } }).crypto;
  return crypto ? (crypto.getRandomValues(new Int32Array(1))[0] as number) : (Math.random() * 2 ** 32) | 0;
}

/** A final mix so the table's low bits depend on every character. */
export function mix(h: number): number {
  let x = h ^ (h >>> 16);
  x = Math.imul(x, 0x85ebca6b);
  x ^= x >>> 13;
  return x;
}

type GrowableArray = Int32Array<ArrayBuffer> | Float64Array<ArrayBuffer> | Uint8Array<ArrayBuffer>;

/** `a`, or a copy of it at least `need` long (doubling), of the same kind. */
function grown<T extends GrowableArray>(a: T, need: number, make: new (size: number) => T): T {
  if (need <= a.length) return a;
  let size = a.length * 2;
  while (size < need) size *= 2;
  const b = new make(size);
  b.set(a as ArrayLike<number>);
  return b;
}

// The interners' own, called on every insert: kept to one kind of array so that it stays fast.
function grownInt32(a: Int32Array<ArrayBuffer>, need: number): Int32Array<ArrayBuffer> {
  if (need <= a.length) return a;
  return grown(a, need, Int32Array);
}

export function growInt32(a: Int32Array<ArrayBuffer>, need: number): Int32Array<ArrayBuffer> {
  return grownInt32(a, need);
}

export function growFloat64(a: Float64Array<ArrayBuffer>, need: number): Float64Array<ArrayBuffer> {
  return grown(a, need, Float64Array);
}

export function growUint8(a: Uint8Array<ArrayBuffer>, need: number): Uint8Array<ArrayBuffer> {
  return grown(a, need, Uint8Array);
}

/** A table of twice `mask + 1` slots holding ids 0..count-1 by their hashes (linear probing). */
function rehashed(
  hashes: Int32Array,
  count: number,
  mask: number,
  unlisted: Uint8Array | null = null,
): Int32Array<ArrayBuffer> {
  const size = (mask + 1) * 2;
  const table = new Int32Array(size);
  const grownMask = size - 1;
  for (let id = 0; id < count; id++) {
    if (unlisted !== null && unlisted[id] === 1) continue;
    let slot = (hashes[id] as number) & grownMask;
    while (table[slot] !== 0) slot = (slot + 1) & grownMask;
    table[slot] = id + 1;
  }
  return table;
}

/** Strings to ids, in the order first seen. */
export class Interner {
  readonly strings: string[] = [];
  private hashes = new Int32Array(256);
  private table = new Int32Array(512);
  private mask = 511;
  /** 1 for an id of `fresh`, which is in no slot of the table. */
  private unlisted = new Uint8Array(256);

  get size(): number {
    return this.strings.length;
  }

  /** The id of `s[from, to)`, ASCII lower-cased when `lower`, added when new. */
  range(s: string, from: number, to: number, lower: boolean): number {
    let h = FNV_OFFSET;
    for (let i = from; i < to; i++) {
      let c = s.charCodeAt(i);
      if (lower && c >= 65 && c <= 90) c += 32;
      h = Math.imul(h ^ c, STRING_MULTIPLIER);
    }
    return this.hashedRange(s, from, to, lower, h);
  }

  /**
   * As `range`, with `h` the FNV-1a state over the range's characters as `range` computes it
   * (before the final mix): for a caller that read the characters already (the scanner).
   */
  hashedRange(s: string, from: number, to: number, lower: boolean, unmixed: number): number {
    const h = mix(unmixed);
    const length = to - from;
    let slot = h & this.mask;
    for (;;) {
      const entry = this.table[slot] as number;
      if (entry === 0) break;
      const id = entry - 1;
      if (this.hashes[id] === h) {
        const known = this.strings[id] as string;
        if (known.length === length && (lower ? sameChars(known, s, from, true) : s.startsWith(known, from))) return id;
      }
      slot = (slot + 1) & this.mask;
    }
    let text = from === 0 && to === s.length ? s : s.slice(from, to);
    if (lower) text = lowerAscii(text);
    return this.insert(text, h, slot);
  }

  id(s: string): number {
    return this.range(s, 0, s.length, false);
  }

  /** The hash of string `id` (as the table spreads it). */
  hashOf(id: number): number {
    return this.hashes[id] as number;
  }

  /**
   * Forgets every string added since the size was `size`. The table is always laid out as if
   * its strings were inserted in id order (rehash walks ids), so taking the newest out first
   * restores it exactly.
   */
  rollback(size: number): void {
    for (let id = this.strings.length - 1; id >= size; id--)
      if (this.unlisted[id] === 1) this.unlisted[id] = 0;
      else clearSlot(this.table, this.mask, this.hashes[id] as number, id);
    this.strings.length = size;
  }

  /** A new id that no string will ever be given: for keys known by their parts (see jsonKey). */
  fresh(): number {
    const id = this.strings.length;
    this.strings.push("");
    this.hashes = grownInt32(this.hashes, id + 1);
    this.hashes[id] = 0;
    this.unlisted = growUint8(this.unlisted, id + 1);
    this.unlisted[id] = 1;
    return id;
  }

  private insert(text: string, h: number, slot: number): number {
    const id = this.strings.length;
    this.strings.push(text);
    this.hashes = grownInt32(this.hashes, id + 1);
    this.hashes[id] = h;
    this.table[slot] = id + 1;
    if ((id + 1) * 2 > this.mask) this.rehash();
    return id;
  }

  private rehash(): void {
    this.table = rehashed(this.hashes, this.strings.length, this.mask, this.unlisted);
    this.mask = this.table.length - 1;
  }
}

/** Empties the slot that holds `id` (the newest entry of its probe chain). */
function clearSlot(table: Int32Array, mask: number, h: number, id: number): void {
  let slot = h & mask;
  while (table[slot] !== id + 1) slot = (slot + 1) & mask;
  table[slot] = 0;
}

function sameChars(known: string, s: string, from: number, lower: boolean): boolean {
  for (let k = 0; k < known.length; k++) {
    let c = s.charCodeAt(from + k);
    if (lower && c >= 65 && c <= 90) c += 32;
    if (known.charCodeAt(k) !== c) return false;
  }
  return true;
}

function lowerAscii(s: string): string {
  let out = "";
  let from = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 65 && c <= 90) {
      out += s.slice(from, i) + String.fromCharCode(c + 32);
      from = i + 1;
    }
  }
  return from === 0 ? s : out + s.slice(from);
}

function seqHash(values: Int32Array, from: number, to: number): number {
  let h = FNV_OFFSET ^ (to - from);
  for (let i = from; i < to; i++) {
    const v = values[i] as number;
    h = Math.imul(h ^ (v & 0xffff), FNV_PRIME);
    h = Math.imul(h ^ (v >>> 16), FNV_PRIME);
  }
  return mix(h);
}

/** Sequences of non-negative integers to ids. The caller writes a sequence into `scratch`, then asks for its id. */
export class SeqInterner {
  /** All sequences, back to back; sequence `id` is `pool[start[id], start[id + 1])`. */
  pool = new Int32Array(1024);
  start = new Int32Array(256);
  private hashes = new Int32Array(256);
  private table = new Int32Array(512);
  private mask = 511;
  count = 0;
  scratch = new Int32Array(64);
  length = 0;

  constructor() {
    this.start[0] = 0;
  }

  push(value: number): void {
    if (this.length >= this.scratch.length) this.scratch = grownInt32(this.scratch, this.length + 1);
    this.scratch[this.length++] = value;
  }

  /** The id of the sequence in `scratch[0, length)`; the scratch is emptied. */
  take(): number {
    const n = this.length;
    const scratch = this.scratch;
    const h = seqHash(scratch, 0, n);
    this.length = 0;
    let slot = h & this.mask;
    for (;;) {
      const entry = this.table[slot] as number;
      if (entry === 0) break;
      const id = entry - 1;
      if (this.hashes[id] === h && this.holds(id, scratch, 0, n)) return id;
      slot = (slot + 1) & this.mask;
    }
    return this.insert(h, slot, n);
  }

  /** The id of the sequence `values[from, to)` if it was ever taken, else -1 (nothing is added). */
  lookup(values: Int32Array, from: number, to: number): number {
    const h = seqHash(values, from, to);
    let slot = h & this.mask;
    for (;;) {
      const entry = this.table[slot] as number;
      if (entry === 0) return -1;
      const id = entry - 1;
      if (this.hashes[id] === h && this.holds(id, values, from, to - from)) return id;
      slot = (slot + 1) & this.mask;
    }
  }

  /** Forgets every sequence taken since the count was `count` (see Interner.rollback). */
  rollback(count: number): void {
    for (let id = this.count - 1; id >= count; id--) clearSlot(this.table, this.mask, this.hashes[id] as number, id);
    this.count = count;
    this.length = 0;
  }

  private holds(id: number, values: Int32Array, from: number, n: number): boolean {
    const a = this.start[id] as number;
    if ((this.start[id + 1] as number) - a !== n) return false;
    const pool = this.pool;
    for (let i = 0; i < n; i++) if (pool[a + i] !== values[from + i]) return false;
    return true;
  }

  private insert(h: number, slot: number, n: number): number {
    const scratch = this.scratch;
    const id = this.count++;
    const at = this.start[id] as number;
    this.pool = grownInt32(this.pool, at + n);
    for (let i = 0; i < n; i++) this.pool[at + i] = scratch[i] as number;
    this.start = grownInt32(this.start, id + 2);
    this.start[id + 1] = at + n;
    this.hashes = grownInt32(this.hashes, id + 1);
    this.hashes[id] = h;
    this.table[slot] = id + 1;
    if ((id + 1) * 2 > this.mask) this.rehash();
    return id;
  }

  private rehash(): void {
    this.table = rehashed(this.hashes, this.count, this.mask);
    this.mask = this.table.length - 1;
  }
}

/**
 * Counts by id that start at zero without being cleared: a count belongs to the current
 * generation or reads as zero. Reused from one measurement to the next (the lexicon keeps a
 * pool), so a small measurement never pays for zeroing arrays as large as the lexicon.
 */
export class Counts {
  private values = new Int32Array(1024);
  private stamps = new Int32Array(1024);
  private generation = 1;

  reset(): void {
    if (++this.generation >= 0x7fffffff) {
      this.stamps.fill(0);
      this.generation = 1;
    }
  }

  get(id: number): number {
    return id < this.stamps.length && this.stamps[id] === this.generation ? (this.values[id] as number) : 0;
  }

  has(id: number): boolean {
    return id < this.stamps.length && this.stamps[id] === this.generation;
  }

  /** Adds `by` to the count of `id` and returns the new count. */
  add(id: number, by = 1): number {
    if (id >= this.stamps.length) {
      this.stamps = grownInt32(this.stamps, id + 1);
      this.values = grownInt32(this.values, id + 1);
    }
    if (this.stamps[id] !== this.generation) {
      this.stamps[id] = this.generation;
      this.values[id] = by;
      return by;
    }
    const v = (this.values[id] as number) + by;
    this.values[id] = v;
    return v;
  }
}
