#!/usr/bin/env bash
# Rafiki's own integration suite against two nodes of ours, configured as an FSP moving from Rafiki
# configures them (docs/rafiki-compatibility.md, "What an FSP changes"). ../shared/rafiki/integration.sh
# runs the suite unmodified, but starts our nodes with its ports, host names and secrets only: no
# operator tenant id, client key, webhook dialect or quote pricing, so its first GraphQL request is
# refused (401: the suite names Rafiki's operator tenant, which our nodes do not know). This runs a
# copy of that script whose only change is those settings on each of our nodes, each from that
# node's own .env where Rafiki has one. The suite, its seeds and its checks are untouched.
# Usage, from the checkout: RAFIKI_GIT_DIR=<mirror> infra/local/tools/rafiki-suite.sh
set -euo pipefail
shared="$(cd "$(dirname "$0")/../../.." && pwd)/../shared/rafiki"
[ -x "$shared/integration.sh" ] || { echo "no $shared/integration.sh" >&2; exit 2; }
copy="$(mktemp -d)/integration.sh"
cp "$shared"/* "$(dirname "$copy")/"
anchor='ADMIN_API_SECRET="$secret" IDP_SECRET="$idp"'
grep -qF "$anchor" "$copy" || { echo "integration.sh changed: its nodes' settings line is not found" >&2; exit 2; }
settings='OPERATOR_TENANT_ID="$(envval "$name" OPERATOR_TENANT_ID)" OPEN_PAYMENTS_CLIENT_KEY_ID="$(envval "$name" KEY_ID)"'
settings+=' OPEN_PAYMENTS_CLIENT_KEY_FILE="$SRC/test/testenv/private-key.pem" AUTH_INTERACTION_PORT=${p}09 WEBHOOK_SECRET="$secret"'
sed -i "s|$(printf '%s' "$anchor" | sed 's/[$]/\\$/g')|$anchor $settings|" "$copy"
export WEBHOOK_DIALECT=rafiki QUOTE_PRICING=rafiki OPEN_PAYMENTS_ANY_CLIENT_QUOTES=true LOCAL_FETCH_HTTPS_AS_HTTP=true \
  WALLET_ADDRESS_NOT_FOUND_WAIT_MS=1500 GNAP_WAIT_SECS=1
exec bash "$copy" "$@"
