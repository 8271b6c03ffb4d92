import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { SecretVault } from "./secret-vault.js";

describe("SecretVault", () => {
  const dirs: string[] = [];
  const vaultIn = () => {
    const dir = mkdtempSync(path.join(tmpdir(), "sh-vault-"));
    dirs.push(dir);
    return { dir, file: path.join(dir, "webhook.key"), vault: new SecretVault(path.join(dir, "webhook.key")) };
  };
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it("creates a 32-byte key file with mode 0600 on first use, and keeps it", () => {
    const { file, vault } = vaultIn();
    expect(() => statSync(file)).toThrow();
    const sealed = vault.seal("whsec_secret", "sub_a");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(Buffer.from(readFileSync(file, "utf8").trim(), "base64url")).toHaveLength(32);
    expect(new SecretVault(file).open(sealed, "sub_a")).toBe("whsec_secret");
  });

  it("seals with AES-256-GCM: no plaintext, a fresh IV per seal", () => {
    const { vault } = vaultIn();
    const secret = `whsec_${randomBytes(32).toString("base64")}`;
    const a = vault.seal(secret, "sub_a");
    const b = vault.seal(secret, "sub_a");
    expect(a).toMatch(/^enc:v1:[A-Za-z0-9_-]+$/);
    expect(a).not.toBe(b);
    expect(a).not.toContain(secret.slice(6, 20));
    expect(vault.open(a, "sub_a")).toBe(secret);
    expect(vault.open(b, "sub_a")).toBe(secret);
  });

  it("refuses a tampered value, another subscription's context and another key", () => {
    const { vault } = vaultIn();
    const sealed = vault.seal("whsec_secret", "sub_a");
    const flipped = sealed.slice(0, -2) + (sealed.at(-2) === "A" ? "B" : "A") + sealed.at(-1);
    expect(() => vault.open(flipped, "sub_a")).toThrow();
    expect(() => vault.open(sealed, "sub_b")).toThrow();
    expect(() => vault.open("whsec_secret", "sub_a")).toThrow();
    expect(() => vaultIn().vault.open(sealed, "sub_a")).toThrow();
  });

  it("refuses a key file that is not 32 bytes", () => {
    const { file, vault } = vaultIn();
    writeFileSync(file, "short\n", { mode: 0o600 });
    expect(() => vault.seal("whsec_secret", "sub_a")).toThrow(/32-byte/);
  });
});
