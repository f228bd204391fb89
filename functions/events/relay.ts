import type { DynamoDBStreamEvent } from 'aws-lambda';
import { node } from '../../lib/config';
import { relayOutbox } from '../../lib/events/relay';
import { observed } from '../../lib/tracing';

// Stream-triggered (the main table's new outbox items): sends committed events and messages.
export const handler = observed((event: DynamoDBStreamEvent) => relayOutbox(node, event.Records));
