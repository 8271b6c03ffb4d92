import { encodeRecord, mintCollectiveId, mintId, recordHashOf } from "@social-harness/protocol";
import { describe, expect, it } from "vitest";
import type { StoredRecordRow } from "../history/history.store.js";
import { compilePolicy } from "./engine.js";
import { readPolicy } from "./policy.schema.js";
import { InboundClock } from "./rate.middleware.js";
import { replayRecords, subjectOfRecord } from "./replay.js";

const GROUP = "group:alice,bob,carol";

function closeRow(id: string): StoredRecordRow {
  const bytes = encodeRecord({
    kind: "post",
    conv: GROUP,
    prev: null,
    author: "alice",
    postId: mintId("post"),
    at: 1_000,
    content: [{ type: "collective", op: "close", id, answers: [{ member: "bob", answer: null }] }],
  });
  return {
    id: 1,
    conv: GROUP,
    seq: 2,
    hash: recordHashOf(bytes),
    kind: "post",
    author: "alice",
    postId: mintId("post"),
    at: 1_000,
    bytes,
    signatures: new Uint8Array(),
    certificate: new Uint8Array(),
    disposition: "delivered",
    storedAt: 1_000,
  };
}

describe("replay", () => {
  it("presents an all_gather close as the collectiveResult it becomes", async () => {
    const { id } = mintCollectiveId("alice");
    const row = closeRow(id);
    const asked: string[] = [];
    const resultQuestion = (of: string) => (asked.push(of), Promise.resolve("Who takes the night shift?"));
    expect(await subjectOfRecord("bob", row, resultQuestion)).toEqual({
      direction: "inbound",
      subject: {
        id,
        kind: "collectiveResult",
        sender: "agent:alice",
        recipients: ["agent:bob", "agent:carol"],
        conversation: GROUP,
        text: "Who takes the night shift?",
      },
    });
    expect(asked).toEqual([id]);

    const read = readPolicy({
      mode: "enforce",
      middlewares: [
        {
          id: "house",
          kind: "rules",
          rules: [
            {
              id: "results",
              direction: "inbound",
              match: { kinds: ["collectiveResult"], text: { pattern: "night shift" } },
              decision: "hold",
              instruction: "The owner reads shift results.",
            },
          ],
        },
      ],
    });
    if (!read.ok) throw new Error(JSON.stringify(read.issues));
    const draft = compilePolicy(0, read.policy, { apiKeys: new Map(), clock: new InboundClock(), now: () => 0 });
    const { summary, entries } = await replayRecords("bob", draft, [row], {
      setNow: () => undefined,
      arrived: () => undefined,
      checkOf: () => Promise.resolve(undefined),
      resultQuestion,
    });
    expect(summary).toMatchObject({ records: 1, checked: 1, changed: 1, changes: { "unchecked → hold": 1 } });
    expect(entries[0]?.would?.rules).toEqual([{ middlewareId: "house", ruleId: "results", decision: "hold" }]);
  });
});
