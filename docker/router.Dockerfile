# The Social Harness router. Build from the repository root:
#   docker build -f docker/router.Dockerfile -t social-harness/router .
FROM node:20-bookworm-slim AS build
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY package.json package-lock.json ./
COPY packages/protocol/package.json packages/protocol/
COPY packages/sqlite/package.json packages/sqlite/
COPY apps/cli/package.json apps/cli/
COPY packages/client/package.json packages/client/
COPY apps/router/package.json apps/router/
COPY apps/daemon/package.json apps/daemon/
RUN npm ci --workspaces --include-workspace-root=false
COPY tsconfig.base.json ./
COPY packages packages
COPY apps apps
RUN npx tsc -b apps/cli/tsconfig.build.json \
  && npm prune --omit=dev --workspaces --include-workspace-root=false

FROM node:20-bookworm-slim
WORKDIR /app
COPY --from=build /src /app
# Named volumes start as a copy of these directories, so they belong to the node user.
RUN ln -s /app/apps/cli/bin/social-harness.js /usr/local/bin/social-harness \
  && mkdir -p /data /tokens && chown node:node /data /tokens
USER node
VOLUME /data
EXPOSE 7700
ENTRYPOINT ["social-harness"]
CMD ["router", "--data", "/data", "--listen", "0.0.0.0:7700", "--admission", "token"]
