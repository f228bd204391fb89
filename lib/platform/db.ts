import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { counted } from './aws';

// The one DynamoDB client of this container, created on first use. Whole numbers past 2^53 (ledger
// balances, at scale 20) are read as exact bigints; every other number as a JS number.
let raw: DynamoDBClient | undefined;
let doc: DynamoDBDocumentClient | undefined;

const sdkClient = () => (raw ??= counted(new DynamoDBClient({}), 'DynamoDB'));

const exactNumber = (text: string): number | bigint => {
  const n = Number(text);
  return Number.isSafeInteger(n) || !/^-?\d+$/.test(text) ? n : BigInt(text);
};

export const db = () =>
  (doc ??= DynamoDBDocumentClient.from(sdkClient(), {
    marshallOptions: { removeUndefinedValues: true },
    unmarshallOptions: { wrapNumbers: exactNumber },
  }));

// The same client, unwrapped, for a library that takes the SDK's own (Powertools idempotency).
export const dynamoForLibraries = () => sdkClient();
