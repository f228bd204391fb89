import type { DynamoDBStreamEvent } from 'aws-lambda';
import { relayOutbox } from '../../lib/events/relay';
import { observed } from '../../lib/tracing';

// Stream-triggered (the main table's new outbox items): sends committed events and messages.
export const handler = observed((event: DynamoDBStreamEvent) => relayOutbox(event.Records));
