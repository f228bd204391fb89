import {
  CreateTableCommand,
  DescribeTableCommand,
  type DynamoDBClient,
  ResourceNotFoundException,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import { CreateQueueCommand, GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { ServiceDef } from '../start/serverless-config';
import type { EventBridgeEmulator } from './eventbridge';

// Creates on the emulators what infra/resources.yml declares, and answers Ref and Fn::GetAtt for
// the resources it made, so that provider.environment resolves as CloudFormation would.
export interface Provisioned {
  ref: string;
  arn: string;
  streamArn?: string; // a table with a stream
}
export type Refs = Record<string, Provisioned>;

class Unresolved extends Error {}

export function resolveIntrinsics(value: unknown, refs: Refs): unknown {
  if (Array.isArray(value)) return value.map((v) => resolveIntrinsics(v, refs));
  if (value && typeof value === 'object') {
    const obj = value as Record<string, unknown>;
    if ('Ref' in obj) {
      const target = refs[obj.Ref as string];
      if (!target) throw new Unresolved(String(obj.Ref));
      return target.ref;
    }
    if ('Fn::GetAtt' in obj) {
      const [name, attr] = obj['Fn::GetAtt'] as [string, string];
      if (!refs[name]) throw new Unresolved(name);
      if (attr === 'Arn') return refs[name].arn;
      if (attr === 'StreamArn' && refs[name].streamArn) return refs[name].streamArn;
      throw new Error(`Fn::GetAtt ${name}.${attr} is not supported locally`);
    }
    return Object.fromEntries(Object.entries(obj).map(([k, v]) => [k, resolveIntrinsics(v, refs)]));
  }
  return value;
}

const stringAttributes = (props: Record<string, unknown>, names: string[]) =>
  Object.fromEntries(names.filter((n) => props[n] !== undefined).map((n) => [n, typeof props[n] === 'object' ? JSON.stringify(props[n]) : String(props[n])]));

// What matters on AWS only: access control, the REST APIs, which the local gateways serve from
// their definitions (./rest-apis.ts), the event archive, alarms and their topic, API access logs,
// and the console's user pool (the local sign-in stands in for it: ./operators.ts). Secrets come
// from the environment locally, and rotate when asked (RotateSecret), not on a schedule.
const AWS_ONLY =
  /^AWS::(ApiGateway|IAM|CloudWatch|SNS|Logs|CloudFormation|Cognito)::|^AWS::Lambda::Permission$|^AWS::SecretsManager::(Secret|RotationSchedule)$|^AWS::SQS::QueuePolicy$|^AWS::S3::BucketPolicy$|^AWS::Events::(Archive|EventBusPolicy)$/;

export async function provision(
  service: ServiceDef,
  clients: { dynamo: DynamoDBClient; sqs: SQSClient; events: EventBridgeEmulator },
  prefix: string,
): Promise<Refs> {
  const refs: Refs = {};
  let pending = Object.entries(service.resources).filter(([, r]) => !AWS_ONLY.test(r.Type));
  while (pending.length) {
    const deferred: typeof pending = [];
    for (const [id, resource] of pending) {
      let props: Record<string, any>;
      try {
        props = resolveIntrinsics(resource.Properties ?? {}, refs) as Record<string, any>;
      } catch (e) {
        if (e instanceof Unresolved) {
          deferred.push([id, resource]);
          continue;
        }
        throw e;
      }
      refs[id] = await create(id, resource.Type, props, clients, prefix, refs);
    }
    if (deferred.length === pending.length) throw new Error(`Unresolvable references among: ${deferred.map(([id]) => id).join(', ')}`);
    pending = deferred;
  }
  return refs;
}

// A table as the template declares it (`props`, its Properties), named `TableName`.
export async function newTable(dynamo: DynamoDBClient, TableName: string, props: Record<string, any>): Promise<Provisioned> {
  const out = await dynamo.send(
    new CreateTableCommand({
      TableName,
      BillingMode: props.BillingMode ?? 'PAY_PER_REQUEST',
      AttributeDefinitions: props.AttributeDefinitions,
      KeySchema: props.KeySchema,
      GlobalSecondaryIndexes: props.GlobalSecondaryIndexes,
      ...(props.StreamSpecification && { StreamSpecification: { StreamEnabled: true, StreamViewType: props.StreamSpecification.StreamViewType } }),
    }),
  );
  if (props.TimeToLiveSpecification?.Enabled) {
    await dynamo.send(new UpdateTimeToLiveCommand({ TableName, TimeToLiveSpecification: props.TimeToLiveSpecification }));
  }
  return { ref: TableName, arn: out.TableDescription!.TableArn!, streamArn: out.TableDescription!.LatestStreamArn };
}

// DynamoDB Local backfills a new index from the table's items: minutes for a large kept data folder.
const INDEX_WAIT_MS = 300_000;
async function activeIndex(dynamo: DynamoDBClient, TableName: string, name: string): Promise<void> {
  for (let tries = 0; tries < INDEX_WAIT_MS / 100; tries++) {
    const { Table } = await dynamo.send(new DescribeTableCommand({ TableName }));
    if (Table!.GlobalSecondaryIndexes?.find((i) => i.IndexName === name)?.IndexStatus === 'ACTIVE') return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`Index ${name} of ${TableName} is not active after ${INDEX_WAIT_MS / 1000} s`);
}

async function create(
  id: string,
  type: string,
  props: Record<string, any>,
  { dynamo, sqs, events }: { dynamo: DynamoDBClient; sqs: SQSClient; events: EventBridgeEmulator },
  prefix: string,
  refs: Refs,
): Promise<Provisioned> {
  switch (type) {
    case 'AWS::DynamoDB::Table': {
      const TableName = `${prefix}${id}`;
      // A table kept from an earlier run (npm start keeps its data) is used as it is, with the
      // indexes added since, as a CloudFormation update adds them (one at a time).
      const kept = await dynamo
        .send(new DescribeTableCommand({ TableName }))
        .catch((e) => (e instanceof ResourceNotFoundException ? undefined : Promise.reject(e)));
      if (kept) {
        const has = new Set((kept.Table!.GlobalSecondaryIndexes ?? []).map((i) => i.IndexName));
        for (const index of props.GlobalSecondaryIndexes ?? []) {
          if (has.has(index.IndexName)) continue;
          await dynamo.send(
            new UpdateTableCommand({ TableName, AttributeDefinitions: props.AttributeDefinitions, GlobalSecondaryIndexUpdates: [{ Create: index }] }),
          );
          await activeIndex(dynamo, TableName, index.IndexName);
        }
        return { ref: TableName, arn: kept.Table!.TableArn!, streamArn: kept.Table!.LatestStreamArn };
      }
      return newTable(dynamo, TableName, props);
    }
    case 'AWS::SQS::Queue': {
      const { QueueUrl } = await sqs.send(
        new CreateQueueCommand({
          QueueName: `${prefix}${id}${props.FifoQueue ? '.fifo' : ''}`,
          Attributes: stringAttributes(props, [
            'VisibilityTimeout',
            'MessageRetentionPeriod',
            'RedrivePolicy',
            'DelaySeconds',
            'FifoQueue',
            'ReceiveMessageWaitTimeSeconds',
          ]),
        }),
      );
      const { Attributes } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['QueueArn'] }));
      return { ref: QueueUrl!, arn: Attributes!.QueueArn! };
    }
    // The audit bucket: the local write-once store (./audit-store.ts) makes its folder on first write.
    case 'AWS::S3::Bucket': {
      const name = `${prefix}${id}`.toLowerCase().replace(/[^a-z0-9.-]/g, '-');
      return { ref: name, arn: `arn:aws:s3:::${name}` };
    }
    case 'AWS::Events::EventBus':
      return { ref: props.Name, arn: `arn:aws:events:us-east-1:000000000000:event-bus/${props.Name}` };
    case 'AWS::Events::Rule': {
      const queueUrlByArn = new Map(Object.values(refs).map((r) => [r.arn, r.ref]));
      events.addRule({
        name: id,
        bus: props.EventBusName ?? 'default',
        pattern: props.EventPattern,
        targetQueueUrls: (props.Targets ?? []).map((t: { Arn: string }) => {
          const url = queueUrlByArn.get(t.Arn);
          if (!url) throw new Error(`Rule ${id}: only SQS targets are emulated locally (${t.Arn})`);
          return url;
        }),
      });
      return { ref: id, arn: `arn:aws:events:us-east-1:000000000000:rule/${id}` };
    }
    default:
      throw new Error(`The local run cannot create ${type} (${id}); add it to infra/local/emulators/provision.ts`);
  }
}
