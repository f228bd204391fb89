import { Logger } from '@aws-lambda-powertools/logger';

// Structured JSON logs; the level comes from POWERTOOLS_LOG_LEVEL.
export const logger = new Logger({ serviceName: 'payment-service' });
