#!/bin/sh
# Checks that docker-compose.yml and deploy/compose/secure-engines.yml parse and validate,
# without a Docker engine:
#   deploy/compose/validate.sh        (from anywhere; exits non-zero on an invalid file)
# Uses `docker-compose` (v1, Debian's package) or, failing that, `docker compose` (v2).
# The files require some settings (SPOOR_IP_SALT; the secured engines' addresses); placeholders
# stand in for validation only.
set -eu
cd "$(dirname "$0")/../.."
export SPOOR_IP_SALT="${SPOOR_IP_SALT:-validate-only-placeholder}"
export SPOOR_KAFKA_BROKERS="${SPOOR_KAFKA_BROKERS:-broker.invalid:9096}"
export SPOOR_KAFKA_SASL_USERNAME="${SPOOR_KAFKA_SASL_USERNAME:-placeholder}"
export SPOOR_CLICKHOUSE_URL="${SPOOR_CLICKHOUSE_URL:-https://clickhouse.invalid:8443}"
export SPOOR_REDIS_URL="${SPOOR_REDIS_URL:-rediss://redis.invalid:6380}"
if command -v docker-compose >/dev/null 2>&1; then
  compose() { docker-compose "$@"; }
elif docker compose version >/dev/null 2>&1; then
  compose() { docker compose "$@"; }
else
  echo "validate.sh: neither docker-compose nor the docker compose plugin is installed (apt-get install -y docker-compose)" >&2
  exit 127
fi
compose -f docker-compose.yml config -q
compose -f deploy/compose/secure-engines.yml config -q
