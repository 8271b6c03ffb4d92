import { describe, expect, it } from "vitest";
import { corkForTurn } from "./cork.js";

/** A stand-in for a ws WebSocket: what matters is its underlying socket's cork depth. */
function fakeWebSocket() {
  const calls: string[] = [];
  const raw = { cork: () => calls.push("cork"), uncork: () => calls.push("uncork") };
  return { socket: { _socket: raw }, calls };
}

describe("corkForTurn", () => {
  it("corks a socket once per turn of the event loop and uncorks it when the turn ends", async () => {
    const { socket, calls } = fakeWebSocket();
    corkForTurn(socket);
    corkForTurn(socket);
    corkForTurn(socket);
    expect(calls).toEqual(["cork"]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(calls).toEqual(["cork", "uncork"]);
    corkForTurn(socket);
    expect(calls).toEqual(["cork", "uncork", "cork"]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(calls).toEqual(["cork", "uncork", "cork", "uncork"]);
  });

  it("leaves a socket that has no underlying stream alone", () => {
    expect(() => corkForTurn({})).not.toThrow();
  });
});
