/**
 * The `ingress` span of each pushed record, when tracing: from the frame's arrival on the link to
 * its batch's commit, a child of the router's push through the frame's traceparent. Its context is
 * remembered under the record's hash, so the firewall check, the inbox and the read hang under it.
 */
import { recordHashOf, rememberSpan, startSpan, type RecordFrame, type TraceSpan } from "@social-harness/protocol";

const open = new WeakMap<RecordFrame, TraceSpan>();

/** The frame arrived (tracing on: the caller checked). */
export function ingressArrived(frame: RecordFrame): void {
  const span = startSpan("ingress", frame.traceparent, {
    "social_harness.conv": frame.conv,
    "social_harness.seq": frame.seq,
  });
  if (span === undefined) return;
  const hash = recordHashOf(frame.record);
  span.setAttributes({ "social_harness.record": hash });
  open.set(frame, span);
  rememberSpan(hash, span);
}

/** The frames' batch is stored. */
export function ingressStored(frames: readonly RecordFrame[]): void {
  for (const frame of frames) {
    open.get(frame)?.end();
    open.delete(frame);
  }
}
