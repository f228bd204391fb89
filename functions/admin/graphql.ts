import { graphqlHandler } from '../../lib/api/graphql/http';

// Rafiki's Admin API, at POST /graphql (lib/api/graphql/http.ts).
export const handler = graphqlHandler();
