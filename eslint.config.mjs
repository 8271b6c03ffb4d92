import { defineConfig, globalIgnores } from "eslint/config";
import nextVitals from "eslint-config-next/core-web-vitals";
import nextTs from "eslint-config-next/typescript";
import tseslint from "typescript-eslint";

const typeChecked = {
  languageOptions: {
    parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
  },
  rules: {
    "@typescript-eslint/no-floating-promises": "error",
    "@typescript-eslint/consistent-type-imports": ["error", { fixStyle: "inline-type-imports" }],
    "@typescript-eslint/switch-exhaustiveness-check": ["error", { considerDefaultExhaustiveForUnions: true }],
    "@typescript-eslint/no-misused-promises": ["error", { checksVoidReturn: { attributes: false } }],
    "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    "@typescript-eslint/only-throw-error": "error",
  },
};

// The architecture, enforced: each entry names what a part of the tree may not import.
const restrict = (...patterns) => ({ "no-restricted-imports": ["error", { patterns }] });
const NOT_ROUTER = {
  regex: "^@social-harness/router|(^|/)apps/router/",
  message: "The daemon reaches the router only over the wire.",
};
const NOT_DAEMON = {
  regex: "^@social-harness/daemon|(^|/)apps/daemon/",
  message: "Only the command line and the tests start a daemon; the daemon is reached over MCP or tRPC.",
};
const NOT_TRANSPORT = {
  regex: "(^|/)(mcp|owner)/|\\.(tools|router|mcp)\\.js$",
  message: "Domain code (stores, services, rules) never imports a transport: MCP tools, tRPC routers, MCP methods.",
};
const NOT_ROUTER_LINK = {
  regex: "(^|/)router-link/",
  message: "Domains never reach the router link; the composition root hands them ports (posts/router-port.ts).",
};
const NOT_OTHER_STORE = {
  regex: "^\\.\\./[^/]+/[^/]*\\.store\\.js$",
  allowTypeImports: true,
  message: "A domain reads another domain's table through that domain's service, never its store.",
};
const NOT_FAULTS = {
  regex: "(^|/)faults/",
  message: "Test fault points wrap ports in the composition root only; production code never sees them.",
};
const NOT_DEEP = {
  regex: "^@social-harness/[^/]+/(src|dist)(/|$)|(^|/)(apps|packages)/[^/]+/src/",
  message: "Only a package's public entry point (its exports map) is imported across packages.",
};
const NOT_HOST_SIDE = {
  regex: "^@social-harness/(daemon|router|sqlite|cli|openclaw|nanoclaw)$",
  message: "An adapter reaches the daemon only through @social-harness/client (and the protocol).",
};
const NOT_ADAPTER = {
  regex: "^@social-harness/(openclaw|nanoclaw)$",
  message: "The command line and the bench start apps; the host adapters are loaded by their hosts.",
};
const NOT_WORKSPACE = {
  regex: "^@social-harness/|^\\.\\./",
  message: "The protocol stands alone: it imports no other workspace and nothing outside its own src.",
};
const NOT_APP = {
  regex: "^@social-harness/(daemon|router|cli)$|(^|/)apps/",
  message: "Libraries under packages/ import no app; only the command line (apps/cli) composes the apps.",
};
const NOT_CLI = {
  regex: "^@social-harness/cli$|(^|/)apps/cli/",
  message: "The apps never import the command line that composes them; only their system tests start it.",
};
const CONSOLE_DAEMON = [
  {
    regex: "^@social-harness/daemon",
    allowTypeImports: true,
    message: "The console imports the daemon's types only.",
  },
  {
    regex: "^@social-harness/daemon",
    importNamePattern: "^(?!AppRouter$)",
    message: "The console imports nothing of the daemon but `type AppRouter`.",
  },
  {
    regex: "^@social-harness/(router|cli|sqlite)|(^|/)apps/",
    message: "The console reaches daemons only through the owner API.",
  },
];

export default defineConfig([
  globalIgnores([
    ".next/**",
    "**/dist/**",
    "next-env.d.ts",
    "node_modules/**",
    "playwright-report/**",
    "test-results/**",
    "e2e-artifacts/**",
    "**/*.js",
    "**/*.cjs",
    "**/*.mjs",
  ]),
  {
    files: ["apps/**/*.ts", "packages/**/*.ts", "bench/**/*.ts", "docker/**/*.ts"],
    extends: [tseslint.configs.recommendedTypeChecked, typeChecked],
  },
  {
    files: ["**/*.test.ts", "**/test/**/*.ts", "**/testing/**/*.ts"],
    rules: {
      "@typescript-eslint/no-non-null-assertion": "off",
      "@typescript-eslint/no-unsafe-assignment": "off",
      "@typescript-eslint/no-unsafe-member-access": "off",
      "@typescript-eslint/no-unsafe-return": "off",
      "@typescript-eslint/no-unsafe-argument": "off",
      "@typescript-eslint/no-explicit-any": "off",
      "@typescript-eslint/require-await": "off",
      "@typescript-eslint/unbound-method": "off",
    },
  },
  {
    files: ["**/migrations/**/*.ts"],
    rules: { "@typescript-eslint/no-explicit-any": "off" },
  },
  {
    files: ["src/**/*.{ts,tsx}", "e2e/**/*.ts", "*.config.ts"],
    extends: [...nextVitals, ...nextTs, typeChecked],
    rules: restrict(...CONSOLE_DAEMON),
  },
  // e2e journeys start real daemons through the test harness, as the system tests do.
  { files: ["e2e/**/*.ts"], rules: { "no-restricted-imports": "off" } },
  { files: ["packages/protocol/src/**/*.ts"], rules: restrict(NOT_WORKSPACE) },
  { files: ["packages/*/src/**/*.ts"], ignores: ["packages/protocol/**"], rules: restrict(NOT_APP) },
  {
    files: ["packages/client/src/**/*.ts", "packages/sqlite/src/**/*.ts"],
    rules: restrict(NOT_DAEMON, NOT_ROUTER, NOT_APP),
  },
  { files: ["apps/router/**/*.ts"], rules: restrict(NOT_DAEMON) },
  { files: ["apps/router/src/**/*.ts"], rules: restrict(NOT_DAEMON, NOT_CLI) },
  { files: ["apps/daemon/**/*.ts"], rules: restrict(NOT_ROUTER) },
  { files: ["apps/daemon/src/**/*.ts"], rules: restrict(NOT_ROUTER, NOT_CLI) },
  {
    files: ["apps/daemon/src/**/*.ts"],
    ignores: [
      "apps/daemon/src/{mcp,owner}/**",
      "apps/daemon/src/**/*.{tools,router,mcp}.ts",
      "apps/daemon/src/**/*.test.ts",
      "apps/daemon/src/daemon.ts",
      "apps/daemon/src/index.ts",
    ],
    rules: restrict(NOT_ROUTER, NOT_TRANSPORT, NOT_CLI, NOT_ROUTER_LINK, NOT_OTHER_STORE, NOT_FAULTS),
  },
  { files: ["apps/cli/src/**/*.ts"], rules: restrict(NOT_DEEP, NOT_ADAPTER) },
  { files: ["packages/{openclaw,nanoclaw}/src/**/*.ts"], rules: restrict(NOT_HOST_SIDE, NOT_DEEP) },
  // The adapters' tests drive them against the client's fake daemon, a test fixture of that package.
  { files: ["packages/{openclaw,nanoclaw}/src/**/*.test.ts"], rules: restrict(NOT_HOST_SIDE) },
  { files: ["bench/**/*.ts"], rules: restrict(NOT_DEEP, NOT_ADAPTER) },
]);
