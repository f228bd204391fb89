import { SQSClient } from '@aws-sdk/client-sqs';
import { counted } from './aws';

// The SQS client of this container, created on first use. Only the modules that talk to SQS
// import it, so that functions which never do are bundled without it.
let client: SQSClient | undefined;

export const sqs = () => (client ??= counted(new SQSClient({ useQueueUrlAsEndpoint: false }), 'SQS'));

// A message's trace header (lib/platform/tracing.ts) as SQS carries it: the AWSTraceHeader system attribute.
export const withTraceHeader = (header: string | undefined) =>
  header ? { MessageSystemAttributes: { AWSTraceHeader: { DataType: 'String', StringValue: header } } } : {};
