#!/usr/bin/env bash
# Deploys serverless.yml to LocalStack. osls honours AWS_ENDPOINT_URL, so no plugin is needed
# (serverless-localstack does not work with osls).
set -euo pipefail
cd "$(dirname "$0")/.."
export AWS_ENDPOINT_URL="${AWS_ENDPOINT_URL:-http://localhost.localstack.cloud:4566}"
export AWS_ACCESS_KEY_ID="${AWS_ACCESS_KEY_ID:-test}" AWS_SECRET_ACCESS_KEY="${AWS_SECRET_ACCESS_KEY:-test}"
export AWS_REGION="${AWS_REGION:-us-east-1}"
export WALLET_ADDRESS_URL="${WALLET_ADDRESS_URL:-http://localhost:4566}"
export AUTH_SERVER_URL="${AUTH_SERVER_URL:-http://localhost:3006}"
export ILP_ADDRESS="${ILP_ADDRESS:-test.localstack}"
# X-Ray, WAF, AWS Backup, Cognito and CodeDeploy are not in LocalStack's free image: no trace
# segments to send, and no web ACL, backup plan, console sign-in or traffic shift in the stack
# (localstack/README.md).
export TRACES_ENABLED=false WAF_ENABLED=false BACKUPS_ENABLED=false CONSOLE_ENABLED=false TRAFFIC_SHIFT=none
npx serverless deploy --stage local --region "$AWS_REGION"
npx serverless info --stage local --region "$AWS_REGION"
# The Admin API secret was generated in LocalStack's Secrets Manager: sign with it.
echo "ADMIN_API_SECRET=$(aws --endpoint-url "$AWS_ENDPOINT_URL" secretsmanager get-secret-value --secret-id payment-service/local/ADMIN_API_SECRET --query SecretString --output text 2>/dev/null || echo '(read it with: aws secretsmanager get-secret-value --secret-id payment-service/local/ADMIN_API_SECRET)')"
