# Footfall's two images, built from the repository root by compose.yaml or by hand:
#   docker build --target ingest -t footfall-ingest .   # the front door on :8080
#   docker build --target query -t footfall-query .     # owns DuckDB, reached through the gateway
# Both build on one shared stage (the toolchain is installed once, and BuildKit builds it once for
# both), and each image holds only the built JavaScript and its own native packages.
#
# The base image is pinned by digest, so a rebuild gets the same system. To move to a newer one,
# see docs/operations.md, "Updating the base image".
ARG NODE_IMAGE=node:20-bookworm-slim@sha256:2cf067cfed83d5ea958367df9f966191a942351a2df77d6f0193e162b5febfc0

FROM ${NODE_IMAGE} AS build
WORKDIR /src
# node-gyp compiles better-sqlite3 where no prebuilt binary fits
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/* && npm install -g pnpm@10.34.9
# Dependencies first: this layer is rebuilt only when a manifest or the lockfile changes.
# (Every workspace's manifest, for the frozen lockfile: the test tools' packages, chdb's 540 MB
# among them, are installed in this stage only and reach no image.)
COPY package.json pnpm-lock.yaml pnpm-workspace.yaml .npmrc ./
COPY apps/dashboard/package.json apps/dashboard/
COPY apps/ingest/package.json apps/ingest/
COPY apps/query/package.json apps/query/
COPY packages/backup/package.json packages/backup/
COPY packages/cli/package.json packages/cli/
COPY packages/clickhouse-test-server/package.json packages/clickhouse-test-server/
COPY packages/config/package.json packages/config/
COPY packages/control/package.json packages/control/
COPY packages/http/package.json packages/http/
COPY packages/instance/package.json packages/instance/
COPY packages/mcp/package.json packages/mcp/
COPY packages/payments/package.json packages/payments/
COPY packages/schema/package.json packages/schema/
COPY packages/tracker/package.json packages/tracker/
COPY packages/wal/package.json packages/wal/
COPY tests/package.json tests/
COPY bench/package.json bench/
RUN pnpm install --frozen-lockfile --ignore-scripts && pnpm rebuild
# Then the sources, the build (scripts/build.ts: plain JavaScript in packages/cli/dist, and the
# dashboard, whose API types come from docs/openapi.yaml), and one folder per image with only that
# service's production dependencies: its native packages.
COPY VERSION tsconfig.base.json ./
COPY docs/openapi.yaml docs/
COPY scripts scripts
COPY apps apps
COPY packages packages
RUN pnpm build \
 && pnpm --filter @footfall/ingest deploy --prod --legacy /out/ingest \
 && pnpm --filter @footfall/query deploy --prod --legacy /out/query

FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production FOOTFALL_DATA_DIR=/data
WORKDIR /app
# The data volume belongs to the unprivileged "node" user (uid 1000, gid 1000) that runs the
# service; a bind mount must be owned by that uid (docs/operations.md, Docker).
RUN mkdir -p /data && chown node:node /data && chmod 0700 /data \
 && ln -s /app/packages/cli/bin/footfall.mjs /usr/local/bin/footfall
COPY --from=build /src/packages/cli/bin packages/cli/bin
COPY --from=build /src/packages/cli/dist packages/cli/dist
VOLUME /data
STOPSIGNAL SIGTERM

FROM runtime AS ingest
COPY --from=build /out/ingest/node_modules node_modules
USER node
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 CMD ["footfall", "live", "ingest"]
# the node options of packages/cli/src/node-flags.ts (INGEST_NODE_FLAGS), as `footfall start` uses them
CMD ["node", "--max-semi-space-size=32", "/app/packages/cli/bin/footfall.mjs", "ingest"]

FROM runtime AS query
COPY --from=build /out/query/node_modules node_modules
USER node
# reached only through the ingest gateway, over /data/run/query.sock
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 CMD ["footfall", "live", "query"]
# the node options of packages/cli/src/node-flags.ts (QUERY_NODE_FLAGS), as `footfall start` uses them
CMD ["node", "--max-old-space-size=384", "/app/packages/cli/bin/footfall.mjs", "query"]
