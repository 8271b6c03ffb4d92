import { describe, expect, it } from "vitest";
import { isWellEncodedPath } from "./path-encoding";

describe("isWellEncodedPath", () => {
  it("accepts plain paths and escapes of valid UTF-8", () => {
    for (const path of [
      "/",
      "/d/alice/inbox",
      "/api/daemons/alice/trpc/status",
      "/d/%61lice",
      "/x/%E2%82%AC",
      "/%2F",
    ]) {
      expect(isWellEncodedPath(path)).toBe(true);
    }
  });

  it("refuses escapes that are not UTF-8, truncated sequences and broken escapes", () => {
    for (const path of [
      "/d/%ff/inbox",
      "/api/daemons/alice/trpc/%ff",
      "/%C0%AF",
      "/%E2%82",
      "/%ED%A0%80",
      "/%zz",
      "/%",
      "/a%2",
    ]) {
      expect(isWellEncodedPath(path)).toBe(false);
    }
  });
});
