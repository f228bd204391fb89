import { costLimitRule } from '@escape.tech/graphql-armor-cost-limit';
import { maxAliasesRule } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthRule } from '@escape.tech/graphql-armor-max-depth';
import { makeExecutableSchema } from '@graphql-tools/schema';
import type { Context } from 'aws-lambda';
import { type DocumentNode, type ExecutionResult, execute, GraphQLError, NoSchemaIntrospectionCustomRule, parse, specifiedRules, validate } from 'graphql';
import type { Node } from '../../shared/node';
import { graphqlError } from './errors';
import { type GraphqlContext, resolvers } from './resolvers';
import { scalars } from './scalars';
import { typeDefs } from './schema';

// Rafiki's Admin API over this service's domain operations (./schema.ts says which). Pure of HTTP:
// ./http.ts signs and scopes the request, this parses, checks and runs it.
export const schema = makeExecutableSchema({ typeDefs, resolvers: { ...scalars, ...resolvers } });

// Limits on what one request may ask, before anything runs: Rafiki's own (depth 10, cost 5000),
// and few aliases (an alias repeats a field's cost under another name).
export const LIMITS = { depth: 10, cost: 5000, aliases: 15 };
const limits = [
  maxDepthRule({ n: LIMITS.depth, exposeLimits: true }),
  costLimitRule({ maxCost: LIMITS.cost, objectCost: 2, scalarCost: 1, depthCostFactor: 1.5, exposeLimits: true }),
  maxAliasesRule({ n: LIMITS.aliases, exposeLimits: true }),
];

export interface GraphqlRequest {
  query: string;
  variables?: Record<string, unknown> | null;
  operationName?: string | null;
}

// `refused`: the request was not run (it does not parse, or breaks the schema or a limit): an HTTP 400.
export type GraphqlAnswer = { refused: boolean; result: ExecutionResult };

// The document's errors against the schema and the limits (graphql-armor's rules throw theirs).
function checkedAgainst(rules: typeof specifiedRules, document: DocumentNode): readonly GraphQLError[] {
  try {
    return validate(schema, document, rules);
  } catch (e) {
    if (e instanceof GraphQLError) return [e];
    throw e;
  }
}

export async function runGraphql(node: Node, request: GraphqlRequest, options: { introspection: boolean; lambda?: Context }): Promise<GraphqlAnswer> {
  let document: DocumentNode;
  try {
    document = parse(request.query, { maxTokens: 5000 });
  } catch (e) {
    return { refused: true, result: { errors: [e as GraphQLError] } };
  }
  const rules = [...specifiedRules, ...limits, ...(options.introspection ? [] : [NoSchemaIntrospectionCustomRule])];
  const invalid = checkedAgainst(rules, document);
  if (invalid.length) return { refused: true, result: { errors: invalid } };
  const context: GraphqlContext = { node, lambda: options.lambda };
  const result = await execute({
    schema,
    document,
    variableValues: request.variables ?? undefined,
    operationName: request.operationName ?? undefined,
    contextValue: context,
  });
  const errors = result.errors?.map((e) => {
    const answer = graphqlError(e.originalError ?? e);
    return new GraphQLError(answer.message, { nodes: e.nodes, path: e.path, extensions: answer.extensions });
  });
  // No data at all (not even null): its variables did not coerce, and nothing ran.
  return { refused: result.data === undefined, result: { ...result, ...(errors && { errors }) } };
}
