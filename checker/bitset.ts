// A set of state ids as one bit each, growing with the ids it holds.

import { ByteBudget, grow } from './growable.ts';

export class BitSet {
  private bits: Uint32Array;

  private readonly budget: ByteBudget;

  constructor(budget: ByteBudget) {
    this.budget = budget;
    this.bits = budget.alloc(Uint32Array, 32);
  }

  add(id: number): void {
    const word = id >>> 5;
    if (word >= this.bits.length) this.bits = grow(this.bits, word + 1, this.budget);
    this.bits[word]! |= 1 << (id & 31);
  }

  has(id: number): boolean {
    const word = id >>> 5;
    return word < this.bits.length && (this.bits[word]! & (1 << (id & 31))) !== 0;
  }
}
