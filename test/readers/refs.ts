import type { Refs } from '../../infra/local/emulators/provision';
import type { ServiceDef } from '../../infra/local/start/serverless-config';

// The Ref and Arn of every queue and table as infra/local/emulators/provision.ts names them under `prefix`
// (a queue's URL ends with its name; a table's Ref is its name), for logic tests that need the
// local names of a stack without starting one.
export const provisionedRefs = (service: ServiceDef, prefix = 't1-'): Refs =>
  Object.fromEntries(
    Object.entries(service.resources).flatMap(([id, r]): Array<[string, Refs[string]]> => {
      const name = `${prefix}${id}`;
      if (r.Type === 'AWS::SQS::Queue') return [[id, { ref: `http://127.0.0.1:9324/000000000000/${name}`, arn: `arn:aws:sqs:us-east-1:000000000000:${name}` }]];
      if (r.Type === 'AWS::DynamoDB::Table') return [[id, { ref: name, arn: `arn:aws:dynamodb:us-east-1:000000000000:table/${name}` }]];
      return [];
    }),
  );
