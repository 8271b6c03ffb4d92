/**
 * A small OTLP/HTTP trace receiver on loopback, as a collector or Jaeger would be: `POST /v1/traces`
 * with an ExportTraceServiceRequest as JSON (application/json) or protobuf
 * (application/x-protobuf), answered with an empty ExportTraceServiceResponse. It keeps each span's
 * ids, name, attributes and its resource's service.name and service.instance.id.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";

export interface ReceivedSpan {
  readonly traceId: string;
  readonly spanId: string;
  /** Empty for a root span. */
  readonly parentSpanId: string;
  readonly name: string;
  readonly service: string;
  readonly instance: string;
  readonly attributes: Readonly<Record<string, string | number | boolean>>;
  /** How it came: "json" or "protobuf". */
  readonly encoding: "json" | "protobuf";
}

type Value = string | number | boolean;

async function bodyOf(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

// ---- OTLP JSON (ids are hex strings, per the OTLP/HTTP JSON mapping) ----

interface JsonKeyValue {
  key: string;
  value: { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };
}

function jsonAttributes(list: JsonKeyValue[] | undefined): Record<string, Value> {
  const out: Record<string, Value> = {};
  for (const { key, value } of list ?? []) {
    const v = value.stringValue ?? value.boolValue ?? value.doubleValue ?? value.intValue;
    if (v !== undefined) out[key] = typeof v === "string" && value.intValue !== undefined ? Number(v) : v;
  }
  return out;
}

function fromJson(body: Buffer): ReceivedSpan[] {
  const request = JSON.parse(body.toString("utf8")) as {
    resourceSpans?: {
      resource?: { attributes?: JsonKeyValue[] };
      scopeSpans?: {
        spans?: { traceId: string; spanId: string; parentSpanId?: string; name: string; attributes?: JsonKeyValue[] }[];
      }[];
    }[];
  };
  const spans: ReceivedSpan[] = [];
  for (const rs of request.resourceSpans ?? []) {
    const resource = jsonAttributes(rs.resource?.attributes);
    for (const ss of rs.scopeSpans ?? []) {
      for (const span of ss.spans ?? []) {
        spans.push({
          traceId: span.traceId,
          spanId: span.spanId,
          parentSpanId: span.parentSpanId ?? "",
          name: span.name,
          service: String(resource["service.name"] ?? ""),
          instance: String(resource["service.instance.id"] ?? ""),
          attributes: jsonAttributes(span.attributes),
          encoding: "json",
        });
      }
    }
  }
  return spans;
}

// ---- OTLP protobuf: just the fields read here, decoded from the wire format by hand ----

type Field = { no: number; bytes?: Buffer; varint?: bigint };

function fields(buf: Buffer): Field[] {
  const out: Field[] = [];
  let at = 0;
  const varint = (): bigint => {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      const byte = buf[at++];
      if (byte === undefined) throw new Error("truncated protobuf");
      result |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return result;
      shift += 7n;
    }
  };
  while (at < buf.length) {
    const tag = Number(varint());
    const no = tag >>> 3;
    switch (tag & 7) {
      case 0:
        out.push({ no, varint: varint() });
        break;
      case 1:
        out.push({ no, bytes: buf.subarray(at, at + 8) });
        at += 8;
        break;
      case 2: {
        const length = Number(varint());
        out.push({ no, bytes: buf.subarray(at, at + length) });
        at += length;
        break;
      }
      case 5:
        out.push({ no, bytes: buf.subarray(at, at + 4) });
        at += 4;
        break;
      default:
        throw new Error(`unsupported protobuf wire type ${tag & 7}`);
    }
  }
  return out;
}

const sub = (f: Field[], no: number): Buffer[] => f.filter((x) => x.no === no && x.bytes).map((x) => x.bytes!);

function protoAttributes(list: Buffer[]): Record<string, Value> {
  const out: Record<string, Value> = {};
  for (const kv of list) {
    const f = fields(kv);
    const key = sub(f, 1)[0]?.toString("utf8");
    const any = sub(f, 2)[0];
    if (key === undefined || any === undefined) continue;
    // AnyValue: 1 string, 2 bool, 3 int, 4 double.
    for (const v of fields(any)) {
      if (v.no === 1 && v.bytes) out[key] = v.bytes.toString("utf8");
      else if (v.no === 2 && v.varint !== undefined) out[key] = v.varint !== 0n;
      else if (v.no === 3 && v.varint !== undefined) out[key] = Number(BigInt.asIntN(64, v.varint));
      else if (v.no === 4 && v.bytes) out[key] = v.bytes.readDoubleLE(0);
    }
  }
  return out;
}

function fromProtobuf(body: Buffer): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  // ExportTraceServiceRequest.resource_spans = 1; ResourceSpans.resource = 1, .scope_spans = 2;
  // Resource.attributes = 1; ScopeSpans.spans = 2; Span: trace_id 1, span_id 2, parent_span_id 4,
  // name 5, attributes 9.
  for (const rs of sub(fields(body), 1)) {
    const rsf = fields(rs);
    const resource = protoAttributes(sub(fields(sub(rsf, 1)[0] ?? Buffer.alloc(0)), 1));
    for (const ss of sub(rsf, 2)) {
      for (const span of sub(fields(ss), 2)) {
        const f = fields(span);
        spans.push({
          traceId: (sub(f, 1)[0] ?? Buffer.alloc(0)).toString("hex"),
          spanId: (sub(f, 2)[0] ?? Buffer.alloc(0)).toString("hex"),
          parentSpanId: (sub(f, 4)[0] ?? Buffer.alloc(0)).toString("hex"),
          name: (sub(f, 5)[0] ?? Buffer.alloc(0)).toString("utf8"),
          service: String(resource["service.name"] ?? ""),
          instance: String(resource["service.instance.id"] ?? ""),
          attributes: protoAttributes(sub(f, 9)),
          encoding: "protobuf",
        });
      }
    }
  }
  return spans;
}

export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  /** Requests it could not read, with why: a test fails on any. */
  readonly refused: string[] = [];
  private readonly server: Server = createServer((req, res) => {
    void (async () => {
      const body = await bodyOf(req);
      if (req.method !== "POST" || req.url !== "/v1/traces") {
        this.refused.push(`${req.method} ${req.url}`);
        res.writeHead(404).end();
        return;
      }
      const type = (req.headers["content-type"] ?? "").split(";")[0]!.trim();
      try {
        if (type === "application/json") {
          this.spans.push(...fromJson(body));
          res.writeHead(200, { "content-type": "application/json" }).end("{}");
        } else if (type === "application/x-protobuf") {
          this.spans.push(...fromProtobuf(body));
          res.writeHead(200, { "content-type": "application/x-protobuf" }).end();
        } else {
          this.refused.push(`content-type ${type}`);
          res.writeHead(415).end();
        }
      } catch (error) {
        this.refused.push(String(error));
        res.writeHead(400).end();
      }
    })().catch(() => res.destroy());
  });
  endpoint = "";

  static async start(): Promise<OtlpReceiver> {
    const receiver = new OtlpReceiver();
    await new Promise<void>((resolve) => receiver.server.listen(0, "127.0.0.1", resolve));
    const address = receiver.server.address();
    const port = typeof address === "object" && address !== null ? address.port : 0;
    receiver.endpoint = `http://127.0.0.1:${port}`;
    return receiver;
  }

  /** The spans of one trace. */
  trace(traceId: string): ReceivedSpan[] {
    return this.spans.filter((s) => s.traceId === traceId);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
