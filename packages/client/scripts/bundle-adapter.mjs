// Bundles a host adapter for `npm pack`, run as its `prepack` from the adapter's own folder: hosts
// install an adapter from its tarball (OpenClaw with npm, NanoClaw with pnpm), and the workspace
// packages it runs on are not published, so plugin/index.js carries them (and their own
// dependencies) inside. Only Node's built-ins stay outside.
import { rm } from "node:fs/promises";
import { builtinModules } from "node:module";
import path from "node:path";
import { build } from "rolldown";

const root = process.cwd();
const builtins = new Set([...builtinModules, ...builtinModules.map((name) => `node:${name}`)]);

await rm(path.join(root, "plugin"), { recursive: true, force: true });
await build({
  input: path.join(root, "dist/index.js"),
  platform: "node",
  external: (id) => builtins.has(id),
  output: { file: path.join(root, "plugin/index.js"), format: "esm", codeSplitting: false },
  logLevel: "warn",
});
