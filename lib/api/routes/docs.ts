// The Admin API's routes of the tag Docs, each declared once (./route.ts says what a declaration holds).
import * as z from 'zod';
import { declareRoutes, type FunctionRoles } from './route';

export const openApiDocumentSchema = z.looseObject({ openapi: z.string() });

export const docsRoutes = declareRoutes({
  // GET /openapi.json: public, unsigned; apart from signedRoutes, which tests sign and send bad input to.
  getOpenApiDocument: {
    tag: 'Docs',
    method: 'get',
    path: '/openapi.json',
    summary: 'Get this document',
    status: 200,
    response: openApiDocumentSchema,
    isPublic: true,
    functionName: 'openApi',
    handler: 'openapi',
    role: 'PublicDocsRole',
  },
});

// The roles of these routes' own functions (those they share are in ./roles.ts).
export const docsRoles = {
  PublicDocsRole: {}, // public, and touches nothing
} satisfies FunctionRoles;
