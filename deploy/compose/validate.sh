#!/bin/sh
# Checks that docker-compose.yml parses and validates, without a Docker engine:
#   deploy/compose/validate.sh        (from anywhere; exits non-zero on an invalid file)
# Uses `docker-compose` (v1, Debian's package) or, failing that, `docker compose` (v2).
# SPOOR_IP_SALT is required by the compose file; a placeholder stands in for validation only.
set -eu
cd "$(dirname "$0")/../.."
export SPOOR_IP_SALT="${SPOOR_IP_SALT:-validate-only-placeholder}"
if command -v docker-compose >/dev/null 2>&1; then
  exec docker-compose -f docker-compose.yml config -q
fi
if docker compose version >/dev/null 2>&1; then
  exec docker compose -f docker-compose.yml config -q
fi
echo "validate.sh: neither docker-compose nor the docker compose plugin is installed (apt-get install -y docker-compose)" >&2
exit 127
