// A 32-bit hash of a state's words (MurmurHash3's word mixing and finalizer). The visited table
// uses its low bits to pick a slot and keeps its high bits as the slot's tag (visited.ts), and a
// full word comparison settles every tag match: a hash collision costs a comparison and can never
// merge two states.

export function stateHash(words: Int32Array): number {
  const n = words.length;
  let h = 0x9747b28c ^ n;
  for (let i = 0; i < n; i++) {
    let k = Math.imul(words[i]!, 0xcc9e2d51);
    k = (k << 15) | (k >>> 17);
    k = Math.imul(k, 0x1b873593);
    h ^= k;
    h = (h << 13) | (h >>> 19);
    h = (Math.imul(h, 5) + 0xe6546b64) | 0;
  }
  // the finalizer: every input bit affects every output bit
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h | 0;
}
