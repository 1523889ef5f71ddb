# One image for the API and the worker, for machines that can pull from a registry
# (docker-compose.yml). On machines without a registry run the platform with scripts/up.sh.
FROM node:24-bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends git ca-certificates docker-compose \
  && rm -rf /var/lib/apt/lists/* && npm install -g pnpm@12.4.2
WORKDIR /app
COPY . .
RUN pnpm install --frozen-lockfile && pnpm --filter @osmosis/db generate
ENV NODE_ENV=production
CMD ["node", "apps/api/src/main.ts"]
