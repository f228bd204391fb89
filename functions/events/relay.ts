import type { DynamoDBStreamEvent } from 'aws-lambda';
import { relayOutbox } from '../../lib/events/relay';

// Stream-triggered (the main table's new outbox items): sends committed events and messages.
export const handler = (event: DynamoDBStreamEvent) => relayOutbox(event.Records);
