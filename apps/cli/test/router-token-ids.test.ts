/**
 * `router token revoke <id>` takes any token id, including the one in 64 that starts with `-` (an
 * id is the start of a base64url digest), which option parsing would take for an unknown option.
 * Tokens are issued in process until one such id comes up; the command line revokes it.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createRegistrationToken } from "@social-harness/router";
import { afterAll, expect, it } from "vitest";

const CLI = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../bin/social-harness.js");
const dir = mkdtempSync(path.join(tmpdir(), "sh-token-ids-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const cli = (...args: string[]) => spawnSync(process.execPath, [CLI, "router", "token", ...args], { encoding: "utf8" });

it("revokes tokens whose ids start with -, named before or after --data, or after --", async () => {
  const dashed: string[] = [];
  const plain: string[] = [];
  for (let i = 0; i < 2_000 && (dashed.length < 2 || plain.length < 1); i++) {
    const { id } = await createRegistrationToken({ dataDir: dir, ttlMs: 60_000 });
    (id.startsWith("-") ? dashed : plain).push(id);
  }
  expect(dashed.length).toBe(2);
  const runs = [
    cli("revoke", dashed[0]!, "--data", dir),
    cli("revoke", "--data", dir, "--", dashed[1]!),
    cli("revoke", `--data=${dir}`, plain[0]!),
  ];
  for (const run of runs) expect(run.status, run.stderr).toBe(0);
  expect(runs.map((run) => run.stderr)).toEqual(
    [dashed[0], dashed[1], plain[0]].map((id) => `revoked registration token ${id}: it registers nothing now\n`),
  );
  const listed = JSON.parse(cli("list", "--data", dir, "--json").stdout) as { id: string; state: { kind: string } }[];
  for (const id of [dashed[0], dashed[1], plain[0]])
    expect(listed.find((t) => t.id === id)?.state.kind).toBe("revoked");
  expect(cli("revoke", "--data", dir).stderr).toContain("router token revoke takes one token id or token");
});
