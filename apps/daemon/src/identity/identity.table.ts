/** The identity tables: the agent keys this daemon pinned and the router key it pinned. */

export interface PinnedKeysTable {
  name: string;
  public_key: Uint8Array;
  pinned_at: number;
}

export interface RouterIdentityTable {
  id: number;
  public_key: Uint8Array;
  pinned_at: number;
}
