// A 64-bit fingerprint of a state's words: two 32-bit hashes of different construction
// (MurmurHash3's word mixing, and an xxHash32-style multiply–rotate), computed in one pass.
// The visited table uses the first to pick a slot and the second as a tag; a full word
// comparison settles every tag match, so a hash collision can never merge two states.

/** Writes the two hashes of `words` into `out[0]` and `out[1]`. */
export function fingerprint(words: Int32Array, out: Uint32Array): void {
  const n = words.length;
  let h1 = 0x9747b28c ^ n;
  let h2 = 0x165667b1 + n;
  for (let i = 0; i < n; i++) {
    const w = words[i]!;
    let k = Math.imul(w, 0xcc9e2d51);
    k = (k << 15) | (k >>> 17);
    k = Math.imul(k, 0x1b873593);
    h1 ^= k;
    h1 = (h1 << 13) | (h1 >>> 19);
    h1 = (Math.imul(h1, 5) + 0xe6546b64) | 0;

    h2 = (h2 + Math.imul(w, 0xc2b2ae3d)) | 0;
    h2 = (h2 << 17) | (h2 >>> 15);
    h2 = Math.imul(h2, 0x27d4eb2f);
  }
  out[0] = fmix32(h1);
  out[1] = fmix32(h2 ^ 0x85ebca77);
}

/** MurmurHash3's finalizer: every input bit affects every output bit. */
function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
