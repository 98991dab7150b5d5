# One image for every Spoor service; SPOOR_SERVICES picks what a container runs
# (docker-compose.yml runs ingest, enricher and sessionizer from it, each on its own).
# Plain multi-stage build: no BuildKit-only syntax, so docker-compose v1 builds it too.

# --- manifests: only the package.json files and the lock, so that `npm ci` below is
# --- rebuilt when dependencies change, not on every source edit.
FROM node:20-slim AS manifests
WORKDIR /src
COPY . .
RUN mkdir /manifests \
 && find . -name node_modules -prune -o \( -name package.json -o -name package-lock.json \) -print \
    | xargs cp --parents --target-directory=/manifests

# --- build: dev dependencies, TypeScript, then drop the dev dependencies again.
FROM node:20-slim AS build
WORKDIR /app
COPY --from=manifests /manifests/ ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build \
 && npm prune --omit=dev --no-audit --no-fund

# --- runtime: compiled services and production dependencies, run as the image's `node` user.
FROM node:20-slim
ENV NODE_ENV=production \
    SPOOR_HOST=0.0.0.0 \
    SPOOR_PORT=8080 \
    SPOOR_DATA_DIR=/var/lib/spoor
WORKDIR /app
# The application stays owned by root (read-only to the service); only the data directory
# (embedded mode's DuckDB and bus, the generated IP salt) is writable.
COPY --from=build /app/package.json /app/package-lock.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/libs ./libs
COPY --from=build /app/services ./services
# The dashboard the gateway serves at / (its Vite build in apps/dashboard/dist).
COPY --from=build /app/apps/dashboard ./apps/dashboard
RUN mkdir -p /var/lib/spoor && chown node:node /var/lib/spoor
USER node
EXPOSE 8080
# The host entry point runs whatever SPOOR_SERVICES names (default: all, embedded engines),
# and stops cleanly on SIGTERM (libs/runtime/src/run-services.ts). V8's young generation is kept
# to 4 MiB semi-spaces, as `npm start` keeps it (docs/analytics.md, Live view: what a stream costs).
CMD ["node", "--max-semi-space-size=4", "services/host/dist/src/main.js"]
