# syntax=docker/dockerfile:1
#
# One image for every Floe deployable. The command picks which one runs:
#
#   docker build -t floe .
#   docker run floe pnpm --filter @floe/gateway start    # or @floe/identity, ...
#   docker run floe pnpm db:migrate                      # apply migrations to DATABASE_URL, seal stored secrets (FLOE_DATA_KEYS)
#   docker run floe pnpm secrets:reseal                  # after a data key rotation: reseal under the first key
#
# TypeScript runs directly with tsx (as on a development machine), so the image
# keeps the workspace's full dependency tree, dev dependencies included.
#
# Node 24, the Active LTS line (supported to April 2028; Node 20 reached its
# end of life in April 2026). The code also runs on 20.19+ and 22.12+
# (package.json "engines"), which development machines and CI may still have
# (docs/deployment.md#node).
FROM node:24-bookworm-slim

# tini is PID 1 and, with -g, passes SIGTERM to the whole process group:
# `pnpm ... start` does not forward signals to the service it starts, so
# without it a stop would skip the services' graceful shutdown.
RUN apt-get update \
 && apt-get install -y --no-install-recommends tini \
 && rm -rf /var/lib/apt/lists/*

# The pnpm pinned in package.json ("packageManager"), installed with npm.
RUN npm install --global --no-fund --no-audit pnpm@10.34.8 \
 && npm cache clean --force

WORKDIR /app

# The workspace (see .dockerignore), its dependencies from the lockfile and
# the generated Prisma client. The pnpm store lives in a build cache, so the
# image holds one copy of each package and rebuilds after a source edit reuse
# what was downloaded before.
COPY . .
RUN --mount=type=cache,id=floe-pnpm-store,target=/pnpm/store \
    CI=true pnpm install --frozen-lockfile --store-dir /pnpm/store \
 && node scripts/prisma-generate.mjs

# Files stay owned by root and read-only to the service user; the services
# write nothing under /app (tsx caches under /tmp).
# Containers listen on every interface (packages/config defaults to loopback).
ENV FLOE_LISTEN_HOST=0.0.0.0 \
    npm_config_update_notifier=false
# Numeric, so Kubernetes' runAsNonRoot can verify it (1000 is the image's `node` user).
USER 1000:1000

EXPOSE 8080 8081 8181
ENTRYPOINT ["/usr/bin/tini", "-g", "--"]
CMD ["pnpm", "--filter", "@floe/gateway", "start"]
