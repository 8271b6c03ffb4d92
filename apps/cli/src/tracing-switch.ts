/**
 * OpenTelemetry traces, off unless the standard environment asks for them: OTEL_EXPORTER_OTLP_ENDPOINT
 * or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT set, or OTEL_TRACES_EXPORTER naming `otlp`; OTEL_SDK_DISABLED
 * or OTEL_TRACES_EXPORTER=none keeps them off. Only then is the SDK imported (tracing-sdk.ts), so a
 * router or daemon without these variables loads none of it. The only place these variables are
 * read (the exporter reads its endpoint, headers and timeout from them itself).
 */
import { installTracing, uninstallTracing } from "@social-harness/protocol";

const set = (value: string | undefined): boolean => value !== undefined && value.trim() !== "";

/** Whether the environment asks for traces. */
export function tracingRequested(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === "true") return false;
  const exporters = (env.OTEL_TRACES_EXPORTER ?? "")
    .split(",")
    .map((e) => e.trim().toLowerCase())
    .filter((e) => e !== "");
  if (exporters.length > 0) return exporters.includes("otlp");
  return set(env.OTEL_EXPORTER_OTLP_ENDPOINT) || set(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}

/** The OTLP protocol asked for: http/protobuf (the specification's default) or http/json; grpc is refused. */
export function otlpProtocol(env: NodeJS.ProcessEnv = process.env): "http/protobuf" | "http/json" {
  const asked = (env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL ?? "").trim();
  if (asked === "" || asked === "http/protobuf") return "http/protobuf";
  if (asked === "http/json") return "http/json";
  throw new Error(`OTEL_EXPORTER_OTLP_PROTOCOL ${asked} is not supported here: use http/protobuf or http/json`);
}

/**
 * Starts tracing for this process when the environment asks for it; returns what flushes and stops
 * it at shutdown (a no-op when off).
 */
export async function tracingFromEnvironment(
  service: "social-harness-router" | "social-harness-daemon",
  instance: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<() => Promise<void>> {
  if (!tracingRequested(env)) return () => Promise.resolve();
  const protocol = otlpProtocol(env);
  const { startTracingSdk } = await import("./tracing-sdk.js");
  const sdk = startTracingSdk(service, instance, protocol);
  installTracing(sdk.backend);
  return async () => {
    uninstallTracing();
    await sdk.shutdown();
  };
}
