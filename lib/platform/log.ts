import { Logger } from '@aws-lambda-powertools/logger';

// Structured JSON logs; Powertools reads the level from POWERTOOLS_LOG_LEVEL. The service's name,
// in logs, metrics and traces, is this service's own, not a setting (serverless.yml's
// POWERTOOLS_SERVICE_NAME says the same for Powertools' other utilities).
export const serviceName = 'payment-service';

export const logger = new Logger({ serviceName });
