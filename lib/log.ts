import { Logger } from '@aws-lambda-powertools/logger';

// Structured JSON logs; the level comes from POWERTOOLS_LOG_LEVEL. The service's name, in logs
// and metrics, from POWERTOOLS_SERVICE_NAME if set.
export const serviceName = process.env.POWERTOOLS_SERVICE_NAME || 'payment-service';

export const logger = new Logger({ serviceName });
