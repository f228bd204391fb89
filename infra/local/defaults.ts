// Local-only defaults. Never used on AWS, where serverless.yml takes settings from the environment.
export const LOCAL_ADMIN_API_SECRET = 'local-only-admin-secret-do-not-deploy';
export const DEFAULT_PORTS = { admin: 3001, openPayments: 3002, fsp: 3003, connector: 3004, authServer: 3006, dynamodb: 8000, sqs: 9324, eventbridge: 4010 };
export const LOCAL_WEBHOOK_SECRET = `whsec_${Buffer.from('local-only-webhook-secret-32-byte').toString('base64')}`;
