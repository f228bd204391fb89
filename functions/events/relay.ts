import type { DynamoDBStreamEvent } from 'aws-lambda';
import { deployment } from '../../lib/context';
import { relayOutbox } from '../../lib/events/relay';
import { observed } from '../../lib/tracing';

// Stream-triggered (the main table's new outbox items, of every tenant): sends committed events and messages.
export const handler = observed((event: DynamoDBStreamEvent) => relayOutbox(deployment, event.Records));
