import { GraphQLError } from 'graphql';
import { logger } from '../../platform/log';
import { DomainError } from '../../shared/errors';

// A domain's refusal as a GraphQL error: the message its REST answer's detail has, Rafiki's error
// code in extensions.code (what Rafiki's clients branch on), and this service's own code and status
// beside it (what the REST API answers). Anything else is a fault: logged, and answered with no detail.
const RAFIKI_CODES: Partial<Record<number, string>> = {
  400: 'BAD_USER_INPUT',
  401: 'UNAUTHENTICATED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  409: 'CONFLICT',
  413: 'BAD_USER_INPUT',
  415: 'BAD_USER_INPUT',
  422: 'BAD_USER_INPUT',
  429: 'FORBIDDEN',
};

// Our codes that Rafiki names with codes of its own.
const BY_CODE: Record<string, string> = {
  asset_exists: 'DUPLICATE',
  peer_exists: 'DUPLICATE',
  wallet_address_exists: 'DUPLICATE',
  wallet_address_inactive: 'INACTIVE',
};

export function graphqlError(e: unknown): GraphQLError {
  if (e instanceof GraphQLError) return e;
  if (e instanceof DomainError) {
    return new GraphQLError(e.message, {
      extensions: {
        code: BY_CODE[e.code] ?? RAFIKI_CODES[e.status] ?? 'INTERNAL_SERVER_ERROR',
        problem: e.code,
        status: e.status,
        ...(e.fields && { fields: e.fields }),
      },
    });
  }
  logger.error('GraphQL resolver failed', { error: e });
  return new GraphQLError('Internal server error', { extensions: { code: 'INTERNAL_SERVER_ERROR' } });
}

// An operation this service does not offer, named.
export const notOffered = (operation: string, why: string) =>
  new GraphQLError(`${operation} is not offered by this service: ${why}`, { extensions: { code: 'BAD_USER_INPUT', problem: 'not_offered' } });
