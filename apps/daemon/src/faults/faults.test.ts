import { describe, expect, it } from "vitest";
import type { BindIntents } from "../posts/posts.service.js";
import type { MulticastSender, TextSender } from "../posts/semantic-send.js";
import { armedFaults, InjectedFault, wrapBindIntents, wrapMulticast, wrapTextSender } from "./faults.js";

const bind: BindIntents = () => Promise.resolve({ outcome: "bound", intents: [], guidance: undefined });
const multicast: MulticastSender = { send: () => Promise.resolve({ conv: "c", postId: "p", hash: "h", seq: 1 }) };
const sender: TextSender = { sendText: () => Promise.resolve({}) };

describe("test fault points", () => {
  it("refuses fault points unless the environment marks the process a test", () => {
    expect(() => armedFaults(["send-untyped-error"], {})).toThrow(/SOCIAL_HARNESS_TEST_FAULTS=1/);
    expect([...armedFaults(["send-untyped-error"], { SOCIAL_HARNESS_TEST_FAULTS: "1" })]).toEqual([
      "send-untyped-error",
    ]);
  });

  it("leaves every port as it is when no point is armed", () => {
    const none = armedFaults(undefined, {});
    expect(wrapBindIntents(none, bind)).toBe(bind);
    expect(wrapMulticast(none, multicast)).toBe(multicast);
    expect(wrapTextSender(none, sender)).toBe(sender);
  });

  it("fails where the armed point says, as the real fault would", async () => {
    const armed = armedFaults(["intent-after-commit", "send-untyped-error", "send-invalid-result"], {
      SOCIAL_HARNESS_TEST_FAULTS: "1",
    });
    const bound = await wrapBindIntents(armed, bind)({} as never, undefined, {} as never);
    expect(bound).toMatchObject({ outcome: "unknown", cause: expect.any(InjectedFault) });
    await expect(wrapMulticast(armed, multicast).send("agent:bob", [])).rejects.toBeInstanceOf(InjectedFault);
    expect(await wrapTextSender(armed, sender).sendText("agent:bob", "hi", "result")).toEqual({ operationId: 42 });
  });
});
