/**
 * Copies of small byte strings carved from shared slabs, as Node's Buffer pool carves
 * `Buffer.allocUnsafe`. A `new Uint8Array(n)` above V8's 64-byte on-heap limit allocates a backing
 * store of its own (malloc, zero fill, registration, a sweep when it dies): about a microsecond
 * for the few hundred bytes of a record or a frame, which every post paid several times over in
 * each process. A copy here costs a view and a memcpy.
 *
 * A copy is a plain Uint8Array over part of a slab, so it keeps its slab alive: copies are for
 * bytes that live about as long as the other bytes carved beside them (a frame's fields, a
 * record in flight). A copy is never transferred to another thread (that would detach the whole
 * slab); a structured clone copies the whole slab, so bytes bound for another thread are copied
 * out first (`ownBuffer`).
 */

/** Slab size: Node's own pool size, so one retained copy holds at most this much. */
const SLAB_BYTES = 8 * 1024;
/** Larger copies get a buffer of their own, as Buffer.allocUnsafe does above half its pool. */
const MAX_CARVED = SLAB_BYTES >>> 1;

let slab = new ArrayBuffer(SLAB_BYTES);
let used = 0;

/** A copy of `bytes` that shares no memory with them. */
export function copyBytes(bytes: Uint8Array): Uint8Array {
  const length = bytes.byteLength;
  // (Not bytes.slice(): on a Buffer that is a view, not a copy.)
  if (length <= 64 || length > MAX_CARVED) return new Uint8Array(bytes);
  if (used + length > SLAB_BYTES) {
    slab = new ArrayBuffer(SLAB_BYTES);
    used = 0;
  }
  const copy = new Uint8Array(slab, used, length);
  copy.set(bytes);
  // Eight-byte alignment, as Buffer's pool keeps, so a later Float64Array view stays legal.
  used = (used + length + 7) & ~7;
  return copy;
}

/** `bytes`, or a copy of them when they are a view into a larger buffer (before a structured clone). */
export function ownBuffer(bytes: Uint8Array): Uint8Array {
  return bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : new Uint8Array(bytes);
}
