import { ChangeMessageVisibilityCommand, SendMessageBatchCommand, SendMessageCommand, SQSClient, SQSServiceException } from '@aws-sdk/client-sqs';
import { overJson } from './aws-json';

// The SQS client of this container, created on first use. Only the modules that talk to SQS
// import it, so that functions which never do are bundled without it. Its calls (the functions
// make these three) go over the lean JSON sender (./aws-json.ts), as the SDK sends them to the
// service's endpoint (not the queue URL's host), the SDK's client resolving where and as whom.
const SQS = {
  label: 'SQS',
  signingName: 'sqs',
  target: 'AmazonSQS',
  version: '1.0',
  headers: { 'x-amzn-query-mode': 'true' }, // as the SDK says it: errors then name their query-protocol codes too
  ServiceException: SQSServiceException,
} as const;
let client: Pick<SQSClient, 'send'> | undefined;

export const sqs = () =>
  (client ??= overJson(new SQSClient({ useQueueUrlAsEndpoint: false }), SQS, [
    [SendMessageCommand, 'SendMessage'],
    [SendMessageBatchCommand, 'SendMessageBatch'],
    [ChangeMessageVisibilityCommand, 'ChangeMessageVisibility'],
  ]));

// A message's trace header (lib/platform/tracing.ts) as SQS carries it: the AWSTraceHeader system attribute.
export const withTraceHeader = (header: string | undefined) =>
  header ? { MessageSystemAttributes: { AWSTraceHeader: { DataType: 'String', StringValue: header } } } : {};
