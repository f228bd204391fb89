import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { counted } from './aws';

// The DynamoDB clients of this container, created on first use.
let raw: DynamoDBClient | undefined;
let doc: DynamoDBDocumentClient | undefined;

// The low-level client: for exact decimal strings (ledger balances) and for Powertools.
export const dynamo = () => (raw ??= counted(new DynamoDBClient({}), 'DynamoDB'));

export const db = () => (doc ??= DynamoDBDocumentClient.from(dynamo(), { marshallOptions: { removeUndefinedValues: true } }));
