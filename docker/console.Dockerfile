# The Social Harness owner console (Next.js, standalone output). Build from the repository root:
#   docker build -f docker/console.Dockerfile -t social-harness/console .
# The deps stage is the same in all three Dockerfiles, so its layers are built once; a source
# change rebuilds the console but reinstalls no dependency.
FROM node:24-bookworm-slim AS deps
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY package.json package-lock.json ./
COPY packages/protocol/package.json packages/protocol/
COPY packages/sqlite/package.json packages/sqlite/
COPY packages/client/package.json packages/client/
COPY packages/openclaw/package.json packages/openclaw/
COPY packages/nanoclaw/package.json packages/nanoclaw/
COPY apps/router/package.json apps/router/
COPY apps/daemon/package.json apps/daemon/
COPY apps/cli/package.json apps/cli/
# Scripts wait for the sources (the root's `prepare` is a build); better-sqlite3 compiles here.
RUN npm ci --ignore-scripts --no-audit --no-fund && npm rebuild better-sqlite3

FROM deps AS build
ENV NEXT_TELEMETRY_DISABLED=1
COPY . .
RUN npm run build:node && npx next build

FROM node:24-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production HOSTNAME=0.0.0.0 PORT=3000 NEXT_TELEMETRY_DISABLED=1
COPY --from=build /src/.next/standalone ./
COPY --from=build /src/.next/static ./.next/static
COPY --from=build /src/public ./public
USER node
EXPOSE 3000
# The signed-out page is the one page served without a session.
HEALTHCHECK --interval=5s --timeout=3s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:3000/signed-out').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "server.js"]
