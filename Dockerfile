# syntax=docker/dockerfile:1
# avahealth: build with the dev toolchain, ship production dependencies only, run as non-root.
#   docker build --build-arg REVISION=$(git rev-parse HEAD) -t avahealth:0.1.0 .
ARG NODE_IMAGE=node:22-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json ./
COPY src ./src
RUN npm run build && npm prune --omit=dev

FROM ${NODE_IMAGE}
ARG REVISION=unknown
ARG VERSION=0.1.0
LABEL org.opencontainers.image.title="avahealth" \
      org.opencontainers.image.description="Health monitoring for Avalanche nodes and the hosted Avalanche APIs" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.licenses="Apache-2.0"
ENV NODE_ENV=production AVAHEALTH_REVISION=${REVISION} AVAHEALTH_STATE_DIR=/var/lib/avahealth
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
COPY specs ./specs
COPY config ./config
# Writes go to the state volume only, so the root filesystem can be read-only.
RUN mkdir -p /var/lib/avahealth && chown node:node /var/lib/avahealth
VOLUME ["/var/lib/avahealth"]
USER node
EXPOSE 9660
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s \
  CMD ["node", "-e", "fetch('http://127.0.0.1:9660/-/healthy').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# One command everywhere (the image, the sidecar, `npm start`, README): `node dist/cli.js`, no V8
# flags on it. NODE_OPTIONS holds what a pod may want to change: --max-semi-space-size=16 is the
# young generation Node.js 22 has by default, and keeps Node.js 24 (NODE_IMAGE=node:24-…), which
# would grow it four times larger, at the same memory. The sidecar component sets 1 (one node).
ENV NODE_OPTIONS=--max-semi-space-size=16
ENTRYPOINT ["node", "dist/cli.js"]
CMD ["run", "--config", "/app/config/avahealth.yaml"]
