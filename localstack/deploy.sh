#!/usr/bin/env bash
# Deploys serverless.yml to LocalStack. osls honours AWS_ENDPOINT_URL, so no plugin is needed
# (serverless-localstack does not work with osls).
set -euo pipefail
cd "$(dirname "$0")/.."
export AWS_ENDPOINT_URL="${AWS_ENDPOINT_URL:-http://localhost.localstack.cloud:4566}"
export AWS_ACCESS_KEY_ID="${AWS_ACCESS_KEY_ID:-test}" AWS_SECRET_ACCESS_KEY="${AWS_SECRET_ACCESS_KEY:-test}"
export AWS_REGION="${AWS_REGION:-us-east-1}"
export ADMIN_API_SECRET="${ADMIN_API_SECRET:?set ADMIN_API_SECRET (16+ characters)}"
export WALLET_ADDRESS_URL="${WALLET_ADDRESS_URL:-http://localhost:4566}"
export AUTH_SERVER_URL="${AUTH_SERVER_URL:-http://localhost:3006}"
export ILP_ADDRESS="${ILP_ADDRESS:-test.localstack}"
npx serverless deploy --stage local --region "$AWS_REGION"
npx serverless info --stage local --region "$AWS_REGION"
