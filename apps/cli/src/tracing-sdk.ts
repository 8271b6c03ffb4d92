/**
 * The OpenTelemetry SDK behind packages/protocol's tracing hops: a Node tracer provider (its
 * AsyncLocalStorage context manager carries a span across awaits, its W3C propagator writes and
 * reads `traceparent`), batching spans to an OTLP/HTTP exporter (protobuf, or JSON when the
 * protocol variable says http/json) that reads the standard OTEL_EXPORTER_OTLP_* variables itself. The sampler is the SDK's: OTEL_TRACES_SAMPLER, by default
 * parent-based always-on. Loaded by tracing-switch.ts only when tracing is asked for.
 */
import { context, propagation, SpanStatusCode, trace, type Context, type Span } from "@opentelemetry/api";
import { OTLPTraceExporter as JsonExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { OTLPTraceExporter as ProtobufExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { detectResources, envDetector, resourceFromAttributes } from "@opentelemetry/resources";
import { BatchSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import { ATTR_SERVICE_NAME } from "@opentelemetry/semantic-conventions";
import type { SpanAttributes, TraceBackend, TraceContext, TraceSpan } from "@social-harness/protocol";

export interface TracingSdk {
  readonly backend: TraceBackend;
  /** Exports what is buffered and stops the exporter. */
  shutdown(): Promise<void>;
}

const asContext = (c: TraceContext): Context => c as unknown as Context;
const asTraceContext = (c: Context): TraceContext => c as unknown as TraceContext;

function spanOf(span: Span, at: Context): TraceSpan {
  const own = trace.setSpan(at, span);
  let header: string | undefined | null = null;
  return {
    context: asTraceContext(own),
    get traceparent() {
      if (header === null) {
        const carrier: Record<string, string> = {};
        propagation.inject(own, carrier);
        header = carrier.traceparent;
      }
      return header;
    },
    setAttributes: (attributes: SpanAttributes) => span.setAttributes(attributes),
    end(error?: unknown) {
      if (error !== undefined) {
        span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.name : "error" });
      }
      span.end();
    },
  };
}

/** The OTLP protocols this SDK exports with (OTEL_EXPORTER_OTLP_[TRACES_]PROTOCOL). */
export type OtlpProtocol = "http/protobuf" | "http/json";

/**
 * Starts the SDK for one process: `service` is its service.name, `instance` its service.instance.id.
 */
export function startTracingSdk(service: string, instance: string, protocol: OtlpProtocol): TracingSdk {
  // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES, when set, win over these defaults.
  const resource = resourceFromAttributes({ [ATTR_SERVICE_NAME]: service, "service.instance.id": instance }).merge(
    detectResources({ detectors: [envDetector] }),
  );
  const provider = new NodeTracerProvider({
    resource,
    spanProcessors: [new BatchSpanProcessor(protocol === "http/json" ? new JsonExporter() : new ProtobufExporter())],
  });
  provider.register();
  const tracer = trace.getTracer("social-harness");
  const backend: TraceBackend = {
    start(name, parent, attributes) {
      const at =
        parent === undefined
          ? context.active()
          : typeof parent === "string"
            ? propagation.extract(context.active(), { traceparent: parent })
            : asContext(parent);
      const span = tracer.startSpan(name, attributes === undefined ? {} : { attributes }, at);
      return spanOf(span, at);
    },
    active: () => asTraceContext(context.active()),
    within: (at, fn) => context.with(asContext(at), fn),
  };
  return { backend, shutdown: () => provider.shutdown() };
}
