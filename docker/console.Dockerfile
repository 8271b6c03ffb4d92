# The Social Harness owner console (Next.js, standalone output). Build from the repository root:
#   docker build -f docker/console.Dockerfile -t social-harness/console .
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
RUN npm ci --ignore-scripts
COPY . .
RUN npm run build:node && npx next build

FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production HOSTNAME=0.0.0.0 PORT=3000
COPY --from=build /src/.next/standalone ./
COPY --from=build /src/.next/static ./.next/static
COPY --from=build /src/public ./public
USER node
EXPOSE 3000
CMD ["node", "server.js"]
