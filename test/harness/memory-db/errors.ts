import { DynamoDBServiceException } from '@aws-sdk/client-dynamodb';

// The errors of DynamoDB that have no class of their own in the SDK, made as the SDK makes them
// from an answer: a DynamoDBServiceException named for its code.
export const validation = (message: string) =>
  new DynamoDBServiceException({ name: 'ValidationException', $fault: 'client', $metadata: { httpStatusCode: 400 }, message });
