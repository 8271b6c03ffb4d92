import { describe, expect, it, vi } from "vitest";

vi.mock("server-only", () => ({}));
const { createLoginGate } = await import("./login-gate");

const TOKEN = "L9x2-kQe7VbR_0pT3mZ8aYw4sN6uC1dF5gH";

describe("the one-time login gate", () => {
  it("accepts the token once and reports every later use as used", () => {
    const gate = createLoginGate(TOKEN);
    expect(gate.consume(TOKEN)).toBe("accepted");
    expect(gate.consume(TOKEN)).toBe("used");
    expect(gate.consume(TOKEN)).toBe("used");
  });

  it("refuses wrong, truncated, extended, empty and absent tokens without consuming the real one", () => {
    const gate = createLoginGate(TOKEN);
    for (const candidate of ["wrong", TOKEN.slice(0, -1), `${TOKEN}x`, TOKEN.toUpperCase(), "", null]) {
      expect(gate.consume(candidate)).toBe("invalid");
    }
    expect(gate.consume(TOKEN)).toBe("accepted");
  });

  it("keeps a wrong token invalid after the real one was used", () => {
    const gate = createLoginGate(TOKEN);
    gate.consume(TOKEN);
    expect(gate.consume("wrong")).toBe("invalid");
  });
});
