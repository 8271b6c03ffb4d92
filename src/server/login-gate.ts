/**
 * The one-time login link (SPEC §12): the token printed at start is accepted exactly once per
 * console process. Comparison is constant time over SHA-256 digests, so neither content nor
 * length leaks; the consumed flag lives on globalThis so every bundle copy in the process sees it.
 */
import "server-only";
import { createHash, timingSafeEqual } from "node:crypto";
import { consoleEnv } from "./env";

export type LoginAttempt = "accepted" | "invalid" | "used";

/** A gate that accepts one token once. */
export interface LoginGate {
  consume(candidate: string | null): LoginAttempt;
}

const digest = (text: string): Buffer => createHash("sha256").update(text, "utf8").digest();

/** A fresh gate for `expected`; the console uses the process-wide one from `loginGate()`. */
export function createLoginGate(expected: string): LoginGate {
  const expectedDigest = digest(expected);
  let consumed = false;
  return {
    consume(candidate) {
      if (candidate === null || candidate === "") return "invalid";
      if (!timingSafeEqual(digest(candidate), expectedDigest)) return "invalid";
      if (consumed) return "used";
      consumed = true;
      return "accepted";
    },
  };
}

const GATE = Symbol.for("social-harness.console.login-gate");
type GateHolder = { [GATE]?: LoginGate };

/** The process-wide gate for SOCIAL_HARNESS_CONSOLE_LOGIN_TOKEN. */
export function loginGate(): LoginGate {
  const holder = globalThis as GateHolder;
  holder[GATE] ??= createLoginGate(consoleEnv().loginToken);
  return holder[GATE];
}
