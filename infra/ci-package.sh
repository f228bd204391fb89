#!/usr/bin/env bash
# `npm run package`, for CI only: builds the CloudFormation templates (the service's, and the
# stacks nested in it) and the bundles of stage `ci`, offline (no AWS account), into
# .serverless/, for `npm run lint:template` and the eye. A deploy must set what it leaves to the
# deployer (the service's URLs and ILP address, who hears the alarms, who may call the Admin API):
# this uses example values for those (yours, where set) and prints each. It packages no other stage:
# for a real one, run `npx serverless package --stage <stage> --region <region>` with its settings
# (docs/deploy.md), which refuses any that is missing or bad.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -n "${STAGE:-}" ] && [ "$STAGE" != ci ]; then
  echo "npm run package is for CI: it packages stage ci with example settings, never $STAGE." >&2
  echo "For $STAGE: npx serverless package --stage $STAGE --region <region>, with its settings (docs/deploy.md)." >&2
  exit 2
fi
export WALLET_ADDRESS_URL="${WALLET_ADDRESS_URL:-https://wallet.example.com}"
export AUTH_SERVER_URL="${AUTH_SERVER_URL:-https://auth.wallet.example.com}"
export ILP_ADDRESS="${ILP_ADDRESS:-test.ci}"
export ALARM_EMAIL="${ALARM_EMAIL:-ops@example.com}"
export ADMIN_ALLOWED_CIDRS="${ADMIN_ALLOWED_CIDRS:-192.0.2.0/24}"
export KEY_ADMIN_ROLE_ARN="${KEY_ADMIN_ROLE_ARN:-arn:aws:iam::123456789012:role/payment-service-key-admin}"
export DEPLOY_ROLE_ARN="${DEPLOY_ROLE_ARN:-arn:aws:iam::123456789012:role/payment-service-deploy}"
export AWS_ACCESS_KEY_ID="${AWS_ACCESS_KEY_ID:-dummy}" AWS_SECRET_ACCESS_KEY="${AWS_SECRET_ACCESS_KEY:-dummy}"
echo "npm run package (CI only): stage ci, offline, with WALLET_ADDRESS_URL=$WALLET_ADDRESS_URL AUTH_SERVER_URL=$AUTH_SERVER_URL" \
  "ILP_ADDRESS=$ILP_ADDRESS ALARM_EMAIL=$ALARM_EMAIL ADMIN_ALLOWED_CIDRS=$ADMIN_ALLOWED_CIDRS" \
  "KEY_ADMIN_ROLE_ARN=$KEY_ADMIN_ROLE_ARN DEPLOY_ROLE_ARN=$DEPLOY_ROLE_ARN"
exec npx serverless package --stage ci
