# The Social Harness daemon (one per agent). Build from the repository root:
#   docker build -f docker/daemon.Dockerfile -t social-harness/daemon .
# The deps stage is the same in all three Dockerfiles and the build stages of the router and the
# daemon are the same, so their layers are built once; a source change reinstalls no dependency.
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
COPY tsconfig.base.json ./
COPY packages packages
COPY apps apps
RUN npx tsc -b apps/cli/tsconfig.build.json \
  && for p in packages/protocol packages/sqlite apps/router apps/daemon apps/cli; do \
  mkdir -p /out/$p && cp -r $p/package.json $p/dist /out/$p/; done \
  && cp -r apps/cli/bin /out/apps/cli/

# Production dependencies of the command line only, without build tools; the addon comes from deps.
FROM node:24-bookworm-slim AS runtime-deps
WORKDIR /app
COPY --from=deps /src/package.json /src/package-lock.json ./
COPY --from=deps /src/packages packages
COPY --from=deps /src/apps apps
RUN rm -rf packages/*/node_modules apps/*/node_modules \
  && npm ci --omit=dev --workspace=@social-harness/cli --include-workspace-root=false --ignore-scripts \
  --no-audit --no-fund && rm -rf /root/.npm
COPY --from=deps /src/node_modules/better-sqlite3/build/Release/better_sqlite3.node \
  node_modules/better-sqlite3/build/Release/

FROM node:24-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY --from=runtime-deps /app/node_modules node_modules
COPY --from=build /out ./
RUN ln -s /app/apps/cli/bin/social-harness.js /usr/local/bin/social-harness \
  && mkdir -p /data && chown node:node /data
# Named volumes start as a copy of these directories, so they belong to the node user.
USER node
VOLUME /data
EXPOSE 8080
HEALTHCHECK --interval=5s --timeout=3s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:8080/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["social-harness"]
CMD ["daemon", "--name", "agent", "--router", "ws://router:7700", "--data", "/data", "--listen", "0.0.0.0:8080"]
