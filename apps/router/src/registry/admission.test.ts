import { encodeBase64url, generateSigningKey } from "@social-harness/protocol";
import { describe, expect, it } from "vitest";
import { chooseAdmission, isLoopbackHost, parseAllowedKeys } from "./admission.js";

describe("router admission", () => {
  it("treats 127.0.0.0/8, ::1 and localhost as loopback, and every other listen address as reachable", () => {
    for (const host of ["127.0.0.1", "127.8.9.10", "::1", "[::1]", "localhost", "LOCALHOST"]) {
      expect(isLoopbackHost(host), host).toBe(true);
    }
    for (const host of ["0.0.0.0", "::", "10.0.0.1", "192.168.1.2", "router", "::ffff:127.0.0.1", "128.0.0.1"]) {
      expect(isLoopbackHost(host), host).toBe(false);
    }
  });

  it("opens admission by default only on loopback and refuses to guess anywhere else", () => {
    expect(chooseAdmission("127.0.0.1", undefined)).toEqual({ mode: "open" });
    expect(() => chooseAdmission("0.0.0.0", undefined)).toThrow(/not loopback.*--admission token.*--admission keys/);
    expect(() => chooseAdmission("router", undefined)).toThrow(/--admission/);
    expect(chooseAdmission("0.0.0.0", { mode: "token" })).toEqual({ mode: "token" });
    expect(chooseAdmission("0.0.0.0", { mode: "open" })).toEqual({ mode: "open" });
    expect(chooseAdmission("127.0.0.1", { mode: "keys", allowedKeysFile: "k" })).toEqual({
      mode: "keys",
      allowedKeysFile: "k",
    });
  });

  it("reads one name and key per line, with comments and blank lines", () => {
    const alice = generateSigningKey().publicKey;
    const bob = generateSigningKey().publicKey;
    const read = parseAllowedKeys(
      `# the agents of this network\n\nalice ${encodeBase64url(alice)}\n  bob\t${encodeBase64url(bob)}  # bob's laptop\r\n`,
    );
    expect(read.ok).toBe(true);
    expect(read.ok && [...read.keys.keys()]).toEqual(["alice", "bob"]);
    expect(read.ok && read.keys.get("bob")).toEqual(bob);
  });

  it("names each line that is wrong: fields, names, duplicates, encodings and small-order keys", () => {
    const key = encodeBase64url(generateSigningKey().publicKey);
    const smallOrder = new Uint8Array(32);
    smallOrder[0] = 1;
    const read = parseAllowedKeys(
      [
        `alice ${key}`,
        `alice ${key}`,
        key,
        `Bob ${key}`,
        `carol ${key} extra`,
        `dave ${key}=`,
        `erin ${encodeBase64url(smallOrder)}`,
        `frank ${encodeBase64url(new Uint8Array(31))}`,
      ].join("\n"),
    );
    expect(read).toEqual({
      ok: false,
      problems: [
        "line 2: alice is listed twice",
        'line 3: expected "<agent name> <public key>"',
        'line 4: "Bob" is not an agent name',
        'line 5: expected "<agent name> <public key>"',
        "line 6: the key of dave is not an ed25519 public key in base64url",
        "line 7: the key of erin is not an ed25519 public key in base64url",
        "line 8: the key of frank is not an ed25519 public key in base64url",
      ],
    });
  });
});
