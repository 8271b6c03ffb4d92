# Stand-in for node:24-bookworm-slim (docker/base-images.sh builds it; the context is Node's files).
# Like the public image: Node and npm in /usr/local, a `node` user with uid and gid 1000.
ARG BASE
FROM ${BASE}
COPY usr/local /usr/local
COPY host-ca.crt /usr/local/share/ca-certificates/host-ca.crt
RUN groupadd --gid 1000 node && useradd --uid 1000 --gid node --shell /bin/bash --create-home node
# No registry of Node headers or prebuilt addons is reachable: node-gyp uses the headers above and
# native addons compile from source. Node trusts the host's certificates besides its own.
ENV npm_config_nodedir=/usr/local npm_config_build_from_source=true npm_config_update_notifier=false \
  NODE_EXTRA_CA_CERTS=/usr/local/share/ca-certificates/host-ca.crt
CMD ["node"]
