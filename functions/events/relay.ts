import type { DynamoDBStreamEvent } from 'aws-lambda';
import { deployment } from '../../lib/api/context';
import { relayOutbox } from '../../lib/platform/events/relay';
import { observed } from '../../lib/platform/tracing';

// Stream-triggered (the main table's new outbox items, of every tenant): sends committed events and messages.
export const handler = observed((event: DynamoDBStreamEvent) => relayOutbox(deployment, event.Records));
