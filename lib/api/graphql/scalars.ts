import { GraphQLError, GraphQLScalarType, Kind, type ValueNode } from 'graphql';

// Rafiki's scalars. UInt64 goes out as a string (JSON numbers lose precision past 2^53) and comes in
// as a string or a number (Rafiki's own seed sends numbers, its cases strings); it reaches a resolver
// as the decimal string this service's amounts are. UInt8 is a number from 0 to 255.
const MAX_U64 = 2n ** 64n - 1n;

function uint64(value: unknown): string {
  const text = typeof value === 'number' && Number.isSafeInteger(value) ? String(value) : value;
  if (typeof text !== 'string' || !/^(0|[1-9]\d{0,19})$/.test(text) || BigInt(text) > MAX_U64) {
    throw new GraphQLError(`UInt64 must be an integer from 0 to ${MAX_U64}, as a string or a safe integer; got ${JSON.stringify(value)}`);
  }
  return text;
}

function uint8(value: unknown): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > 255) {
    throw new GraphQLError(`UInt8 must be an integer from 0 to 255; got ${JSON.stringify(value)}`);
  }
  return value;
}

const literal = (node: ValueNode): unknown =>
  node.kind === Kind.INT ? Number(node.value) : node.kind === Kind.STRING ? node.value : node.kind === Kind.NULL ? null : node.kind;

function jsonObject(value: unknown): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new GraphQLError('JSONObject must be a JSON object');
  return value as Record<string, unknown>;
}

export const scalars = {
  UInt64: new GraphQLScalarType({
    name: 'UInt64',
    serialize: (v) => uint64(typeof v === 'bigint' ? String(v) : v),
    parseValue: uint64,
    parseLiteral: (node) => uint64(node.kind === Kind.INT ? node.value : literal(node)),
  }),
  UInt8: new GraphQLScalarType({ name: 'UInt8', serialize: uint8, parseValue: uint8, parseLiteral: (node) => uint8(literal(node)) }),
  JSONObject: new GraphQLScalarType({
    name: 'JSONObject',
    serialize: jsonObject,
    parseValue: jsonObject,
    // An object written in the document itself is not taken: send it as a variable.
    parseLiteral: () => {
      throw new GraphQLError('JSONObject must be sent as a variable');
    },
  }),
};
