/**
 * Reads keyed by a list of any length: one query per slice of at most 500 keys, so an IN list
 * stays well under SQLite's bound on a statement's parameters.
 */
const KEYS_PER_QUERY = 500;

/** Runs `read` over `keys` a slice at a time and returns every row, in slice order. */
export async function readInSlices<K, R>(keys: readonly K[], read: (slice: K[]) => Promise<R[]>): Promise<R[]> {
  const rows: R[] = [];
  for (let at = 0; at < keys.length; at += KEYS_PER_QUERY)
    rows.push(...(await read(keys.slice(at, at + KEYS_PER_QUERY))));
  return rows;
}
