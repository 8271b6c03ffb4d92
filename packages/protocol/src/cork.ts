/**
 * Frames sent in one turn of the event loop leave in one write. A link corks its WebSocket's
 * underlying socket at the first frame of a turn and uncorks it once the loop has handled the I/O
 * it was woken for (ws keeps its own cork/uncork pairs inside, which nest): a batch's
 * acknowledgments, or a group commit's certificates and pushes, cost one system call per socket.
 */
interface Corkable {
  cork(): void;
  uncork(): void;
}

const corked = new WeakSet<Corkable>();

/** Corks `socket` (a `ws` WebSocket) until the current turn of the event loop ends. */
export function corkForTurn(socket: object): void {
  const raw = (socket as { _socket?: Corkable })._socket;
  if (raw === undefined || corked.has(raw)) return;
  corked.add(raw);
  raw.cork();
  setImmediate(() => {
    corked.delete(raw);
    raw.uncork();
  });
}
