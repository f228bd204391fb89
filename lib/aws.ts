import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

// One client per container. Endpoints come from the SDK's own AWS_ENDPOINT_URL_* variables,
// which the local stack sets to the emulators.
export const dynamoClient = new DynamoDBClient({});

export const db = DynamoDBDocumentClient.from(dynamoClient, {
  marshallOptions: { removeUndefinedValues: true },
});

export const sqs = new SQSClient({ useQueueUrlAsEndpoint: false });
export const eventBridge = new EventBridgeClient({});
