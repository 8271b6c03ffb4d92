import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { readOrCreateSecret } from "./secret-file.js";

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("readOrCreateSecret", () => {
  it("creates the file whole with mode 0600, leaves no temporary file, and never rewrites it", () => {
    dir = mkdtempSync(path.join(tmpdir(), "sh-secret-"));
    const file = path.join(dir, "identity.key");
    expect(readOrCreateSecret(file, () => "first")).toBe("first");
    expect(readFileSync(file, "utf8")).toBe("first\n");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readOrCreateSecret(file, () => "second")).toBe("first");
    expect(readdirSync(dir)).toEqual(["identity.key"]);
  });

  it("reads the file another process created first", () => {
    dir = mkdtempSync(path.join(tmpdir(), "sh-secret-"));
    const file = path.join(dir, "owner.token");
    const created = readOrCreateSecret(file, () => {
      writeFileSync(file, "theirs\n", { mode: 0o644 });
      return "ours";
    });
    expect(created).toBe("theirs");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual(["owner.token"]);
  });
});
