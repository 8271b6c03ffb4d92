/**
 * The checks themselves, over hand-written ledgers: each broken promise is caught and named, what
 * the contract allows (an outcome-unknown send that never arrives, a webhook receipt lost in a
 * crash) is not, so a trial that reports zero violations means the promises held.
 */
import { describe, expect, it } from "vitest";
import { gatherKind } from "./kinds/gather.js";
import { directKind, groupKind } from "./kinds/multicast.js";
import { webhookKind } from "./kinds/webhook.js";
import { canonicalJson, Ledger, type Message, type Sighting } from "./ledger.js";
import { checkPromises } from "./promises.js";

const kinds = [directKind("bob"), groupKind(), gatherKind("alice"), webhookKind("dave")];
let tokens = 0;
const token = () => `dlv_${String(++tokens).padStart(43, "A")}`;

function sent(ledger: Ledger, id: string, outcome: Message["outcome"], traffic = "direct", to = "agent:bob"): Message {
  return ledger.add({ id, traffic, from: "alice", to, text: `chaos ${id} ${traffic}`, outcome });
}

function offer(ledger: Ledger, recipient: string, key: string, at: number, extra: Partial<Sighting> = {}): Sighting {
  const sighting: Sighting = {
    recipient,
    via: "mcp",
    token: token(),
    payload: canonicalJson({ item: { key }, guidance: null }),
    key,
    at,
    accepted: true,
    ...extra,
  };
  ledger.sight(sighting);
  return sighting;
}

const kindsOf = (ledger: Ledger) => checkPromises(ledger, kinds).violations.map((v) => v.kind);

describe("the promise checks", () => {
  it("pass a trial where everything that returned arrived once", () => {
    const ledger = new Ledger();
    sent(ledger, "m1", "returned");
    sent(ledger, "m2", "delivery-pending");
    sent(ledger, "m3", "outcome-unknown");
    const first = offer(ledger, "bob", "msg:m1", 1);
    offer(ledger, "bob", "msg:m1", 2, { token: first.token });
    offer(ledger, "bob", "msg:m2", 3);
    ledger.ack({ recipient: "bob", via: "mcp", token: first.token, at: 5 });
    const { counts, violations } = checkPromises(ledger, kinds);
    expect(violations).toEqual([]);
    expect(counts).toMatchObject({ messages: 3, returned: 1, deliveryPending: 1, outcomeUnknown: 1, delivered: 2 });
  });

  it("count a returned or delivery-pending send that never arrived as lost, and not an outcome-unknown one", () => {
    const ledger = new Ledger();
    sent(ledger, "m1", "returned");
    sent(ledger, "m2", "delivery-pending");
    sent(ledger, "m3", "outcome-unknown");
    expect(kindsOf(ledger)).toEqual(["lost", "lost"]);
  });

  it("count one message offered under two tokens as duplicated, whatever its send's outcome", () => {
    const ledger = new Ledger();
    sent(ledger, "m1", "returned");
    sent(ledger, "m2", "outcome-unknown");
    offer(ledger, "bob", "msg:m1", 1);
    offer(ledger, "bob", "msg:m1", 2);
    offer(ledger, "bob", "msg:m2", 3);
    offer(ledger, "bob", "msg:m2", 4);
    expect(kindsOf(ledger)).toEqual(["duplicated", "duplicated"]);
  });

  it("count a token offered with two payloads as rebound", () => {
    const ledger = new Ledger();
    sent(ledger, "m1", "returned");
    const first = offer(ledger, "bob", "msg:m1", 1);
    offer(ledger, "bob", "msg:m1", 2, { token: first.token, payload: canonicalJson({ item: { other: 1 } }) });
    expect(kindsOf(ledger)).toEqual(["rebound"]);
  });

  it("count an item offered again after acknowledge_delivery returned as resurrected, even across a crash", () => {
    const ledger = new Ledger();
    sent(ledger, "m1", "returned");
    const first = offer(ledger, "bob", "msg:m1", 1);
    ledger.ack({ recipient: "bob", via: "mcp", token: first.token, at: 2 });
    ledger.faults.push({ process: "bob", what: "killed", from: 3, to: 4 });
    offer(ledger, "bob", "msg:m1", 5, { token: first.token });
    expect(kindsOf(ledger)).toEqual(["resurrected"]);
  });

  it("allow a webhook event to come again only when a crash or a full disk may have lost its receipt", () => {
    const hook = { via: "webhook" } as const;
    const ledger = new Ledger();
    sent(ledger, "m1", "returned", "webhook", "agent:dave");
    const lostReceipt = offer(ledger, "dave", "msg:m1", 1, hook);
    ledger.ack({ recipient: "dave", via: "webhook", token: lostReceipt.token, at: 2 });
    ledger.faults.push({ process: "dave", what: "disk-full", from: 1, to: 3 });
    offer(ledger, "dave", "msg:m1", 4, { ...hook, token: lostReceipt.token });
    expect(kindsOf(ledger)).toEqual([]);

    const calm = new Ledger();
    sent(calm, "m2", "returned", "webhook", "agent:dave");
    const retired = offer(calm, "dave", "msg:m2", 10, hook);
    calm.ack({ recipient: "dave", via: "webhook", token: retired.token, at: 11 });
    offer(calm, "dave", "msg:m2", 12, { ...hook, token: retired.token });
    expect(kindsOf(calm)).toEqual(["resurrected"]);
  });

  it("count a webhook delivery the receiver refused as not yet received", () => {
    const ledger = new Ledger();
    sent(ledger, "m1", "returned", "webhook", "agent:dave");
    offer(ledger, "dave", "msg:m1", 1, { via: "webhook", accepted: false });
    expect(kindsOf(ledger)).toEqual(["lost"]);
  });

  it("count a refused send that arrived, and a post offered to its own sender, as phantom", () => {
    const ledger = new Ledger();
    sent(ledger, "m1", "refused");
    sent(ledger, "m2", "returned");
    offer(ledger, "bob", "msg:m1", 1);
    offer(ledger, "bob", "msg:m2", 2);
    offer(ledger, "alice", "msg:m2", 3);
    expect(kindsOf(ledger)).toEqual(["phantom", "phantom"]);
  });

  it("demand exactly one ending at the requester for a gather whose send returned, and none for a refused one", () => {
    const ledger = new Ledger();
    const returned = sent(ledger, "m1", "returned", "gather", "group:bob,carol");
    returned.result = { operationId: "col_one" };
    const twice = sent(ledger, "m2", "returned", "gather", "group:bob,carol");
    twice.result = { operationId: "col_two" };
    const refused = sent(ledger, "m3", "refused", "gather", "group:bob,carol");
    refused.result = { reason: "collective-failed", id: "col_three" };
    offer(ledger, "alice", "ending:col_two", 1);
    offer(ledger, "alice", "ending:col_two", 2);
    offer(ledger, "alice", "ending:col_three", 3);
    expect(kindsOf(ledger).sort()).toEqual(["duplicated", "lost", "phantom"]);
  });

  it("report what the harness found on its own, such as a process that died unasked", () => {
    const ledger = new Ledger();
    ledger.incident("crashed", "bob exited on its own");
    const { counts, violations } = checkPromises(ledger, kinds);
    expect(violations).toEqual([{ kind: "crashed", detail: "bob exited on its own" }]);
    expect(counts.other).toBe(1);
  });
});
