// Hash tables keyed by small tuples of integers (ids): pairs, runs of four, triples. Open
// addressing over typed arrays, so a table of a million entries is a few arrays, not a million
// objects for the collector to walk.
import { FNV_PRIME, growInt32, mix } from "./intern";

/**
 * A map from two non-negative integers to a non-negative integer. Entries are kept in the order
 * added (the table is rebuilt in that order), so `rollback` can take the newest out.
 */
export class PairMap {
  private a = new Int32Array(1024);
  private b = new Int32Array(1024);
  private values = new Int32Array(1024);
  private table = new Int32Array(2048);
  private mask = 2047;
  size = 0;

  /** The value stored for (a, b), or -1. */
  get(a: number, b: number): number {
    const entry = this.table[this.find(a, b)] as number;
    return entry === 0 ? -1 : (this.values[entry - 1] as number);
  }

  /** Stores a value for a pair that has none. */
  add(a: number, b: number, value: number): void {
    const slot = this.find(a, b);
    const e = this.size++;
    if (e >= this.values.length) {
      this.a = growInt32(this.a, e + 1);
      this.b = growInt32(this.b, e + 1);
      this.values = growInt32(this.values, e + 1);
    }
    this.a[e] = a;
    this.b[e] = b;
    this.values[e] = value;
    this.table[slot] = e + 1;
    if (this.size * 2 > this.mask) this.rehash();
  }

  /** Forgets every pair added since the size was `size`. */
  rollback(size: number): void {
    for (let e = this.size - 1; e >= size; e--) this.table[this.find(this.a[e] as number, this.b[e] as number)] = 0;
    this.size = size;
  }

  private find(a: number, b: number): number {
    let slot = mix(Math.imul(Math.imul(a ^ 0x9e3779b9, FNV_PRIME) ^ b, FNV_PRIME)) & this.mask;
    for (;;) {
      const entry = this.table[slot] as number;
      if (entry === 0 || (this.a[entry - 1] === a && this.b[entry - 1] === b)) return slot;
      slot = (slot + 1) & this.mask;
    }
  }

  private rehash(): void {
    const size = (this.mask + 1) * 2;
    this.table = new Int32Array(size);
    this.mask = size - 1;
    for (let e = 0; e < this.size; e++) this.table[this.find(this.a[e] as number, this.b[e] as number)] = e + 1;
  }
}

/** Runs of four integers to dense ids, without copying them anywhere but the table. */
export class QuadIds {
  /** Per slot: the id of the run there plus one, 0 when empty. */
  private slots = new Int32Array(1024);
  private mask = 1023;
  /**
   * The runs by id, four numbers each, in the order given. Not by slot: a table of a large
   * content's runs is mostly empty slots, and a lookup that meets an empty slot reads no key.
   */
  private keys = new Int32Array(4 * 512);
  count = 0;

  /** Makes room for `n` runs at once, rather than doubling the table step by step as they come. */
  reserve(n: number): void {
    if (this.count > 0 || n * 2 <= this.mask) return;
    let size = this.mask + 1;
    while (n * 2 > size - 1) size *= 2;
    this.slots = new Int32Array(size);
    this.mask = size - 1;
  }

  /** Forgets every run, keeping the table unless it grew large. */
  clear(): void {
    if (this.count === 0) return;
    if (this.slots.length > 1 << 16) {
      this.slots = new Int32Array(1024);
      this.keys = new Int32Array(4 * 512);
      this.mask = 1023;
    } else this.slots.fill(0);
    this.count = 0;
  }

  /** The slot that holds the run (a, b, c, d), or the empty slot where it would go. */
  private slotOf(a: number, b: number, c: number, d: number): number {
    let slot = quadHash(a, b, c, d) & this.mask;
    for (;;) {
      const entry = this.slots[slot] as number;
      if (entry === 0) return slot;
      const k = (entry - 1) * 4;
      if (this.keys[k] === a && this.keys[k + 1] === b && this.keys[k + 2] === c && this.keys[k + 3] === d) return slot;
      slot = (slot + 1) & this.mask;
    }
  }

  /** The id of the run (a, b, c, d) if it has one, else -1 (nothing is added). */
  find(a: number, b: number, c: number, d: number): number {
    return (this.slots[this.slotOf(a, b, c, d)] as number) - 1;
  }

  id(a: number, b: number, c: number, d: number): number {
    const slot = this.slotOf(a, b, c, d);
    const known = this.slots[slot] as number;
    if (known !== 0) return known - 1;
    const id = this.count++;
    const k = id * 4;
    if (k + 4 > this.keys.length) this.keys = growInt32(this.keys, k + 4);
    this.keys[k] = a;
    this.keys[k + 1] = b;
    this.keys[k + 2] = c;
    this.keys[k + 3] = d;
    this.slots[slot] = id + 1;
    if (this.count * 2 > this.mask) this.rehash();
    return id;
  }

  private rehash(): void {
    const keys = this.keys;
    const size = (this.mask + 1) * 2;
    const slots = new Int32Array(size);
    const mask = size - 1;
    for (let id = 0; id < this.count; id++) {
      const k = id * 4;
      let slot =
        quadHash(keys[k] as number, keys[k + 1] as number, keys[k + 2] as number, keys[k + 3] as number) & mask;
      while (slots[slot] !== 0) slot = (slot + 1) & mask;
      slots[slot] = id + 1;
    }
    this.slots = slots;
    this.mask = mask;
  }
}

function quadHash(a: number, b: number, c: number, d: number): number {
  let h = Math.imul(a ^ 0x9e3779b9, FNV_PRIME);
  h = Math.imul(h ^ b, FNV_PRIME);
  h = Math.imul(h ^ c, FNV_PRIME);
  return mix(Math.imul(h ^ d, FNV_PRIME));
}

/** Counts keyed by three non-negative integers. */
export class TripleCounter {
  private keys = new Int32Array(3 * 256);
  private counts = new Int32Array(256);
  private used = new Uint8Array(256);
  private mask = 255;
  private size = 0;

  add(a: number, b: number, c: number): void {
    const slot = this.find(a, b, c);
    if (this.used[slot] === 0) {
      this.used[slot] = 1;
      this.keys[slot * 3] = a;
      this.keys[slot * 3 + 1] = b;
      this.keys[slot * 3 + 2] = c;
      this.counts[slot] = 1;
      if (++this.size * 2 > this.mask) this.rehash();
    } else this.counts[slot] = (this.counts[slot] as number) + 1;
  }

  get(a: number, b: number, c: number): number {
    const slot = this.find(a, b, c);
    return this.used[slot] === 0 ? 0 : (this.counts[slot] as number);
  }

  private find(a: number, b: number, c: number): number {
    let h = Math.imul(a ^ 0x9e3779b9, FNV_PRIME);
    h = Math.imul(h ^ b, FNV_PRIME);
    h = mix(Math.imul(h ^ c, FNV_PRIME));
    let slot = h & this.mask;
    while (this.used[slot] !== 0) {
      const k = slot * 3;
      if (this.keys[k] === a && this.keys[k + 1] === b && this.keys[k + 2] === c) return slot;
      slot = (slot + 1) & this.mask;
    }
    return slot;
  }

  private rehash(): void {
    const keys = this.keys;
    const counts = this.counts;
    const used = this.used;
    const size = (this.mask + 1) * 2;
    this.keys = new Int32Array(size * 3);
    this.counts = new Int32Array(size);
    this.used = new Uint8Array(size);
    this.mask = size - 1;
    for (let s = 0; s < used.length; s++) {
      if (used[s] === 0) continue;
      const slot = this.find(keys[s * 3] as number, keys[s * 3 + 1] as number, keys[s * 3 + 2] as number);
      this.used[slot] = 1;
      this.keys[slot * 3] = keys[s * 3] as number;
      this.keys[slot * 3 + 1] = keys[s * 3 + 1] as number;
      this.keys[slot * 3 + 2] = keys[s * 3 + 2] as number;
      this.counts[slot] = counts[s] as number;
    }
  }
}

/**
 * Where `id` is in a table of ids plus one (0: empty slot), by linear probing: its slot, or the
 * empty slot where it would go. IdSet's and IdMap's one lookup.
 */
function idSlot(table: Int32Array, mask: number, id: number): number {
  let slot = mix(Math.imul(id ^ 0x9e3779b9, FNV_PRIME)) & mask;
  for (;;) {
    const entry = table[slot] as number;
    if (entry === 0 || entry === id + 1) return slot;
    slot = (slot + 1) & mask;
  }
}

/** A set of non-negative integers. */
export class IdSet {
  private table = new Int32Array(64);
  private mask = 63;
  private size = 0;

  has(id: number): boolean {
    return this.table[idSlot(this.table, this.mask, id)] !== 0;
  }

  add(id: number): void {
    const slot = idSlot(this.table, this.mask, id);
    if (this.table[slot] !== 0) return;
    this.table[slot] = id + 1;
    if (++this.size * 2 > this.mask) {
      const old = this.table;
      this.table = new Int32Array(old.length * 2);
      this.mask = this.table.length - 1;
      this.size = 0;
      for (const entry of old) if (entry !== 0) this.add(entry - 1);
    }
  }
}

/**
 * A map from non-negative integers to non-negative integers: for what a source's analysis keeps
 * by id, which must cost in proportion to the source, not to the ids the lexicon has given out
 * (an array indexed by id grows with the lexicon, and every kept analysis held one).
 */
export class IdMap {
  /** Each slot's id plus one, or 0 when empty. */
  private ids = new Int32Array(64);
  private values = new Int32Array(64);
  private mask = 63;
  private size = 0;

  /** The value stored for `id`, or -1. */
  get(id: number): number {
    const slot = idSlot(this.ids, this.mask, id);
    return this.ids[slot] === 0 ? -1 : (this.values[slot] as number);
  }

  set(id: number, value: number): void {
    const slot = idSlot(this.ids, this.mask, id);
    this.values[slot] = value;
    if (this.ids[slot] !== 0) return;
    this.ids[slot] = id + 1;
    if (++this.size * 2 > this.mask) {
      const [ids, values] = [this.ids, this.values];
      this.ids = new Int32Array(ids.length * 2);
      this.values = new Int32Array(ids.length * 2);
      this.mask = this.ids.length - 1;
      this.size = 0;
      for (let s = 0; s < ids.length; s++) if (ids[s] !== 0) this.set((ids[s] as number) - 1, values[s] as number);
    }
  }
}
