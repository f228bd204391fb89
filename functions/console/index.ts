import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { CONSOLE_API_PREFIX, handOff, lambdaInvoke, type SignIn, servePage } from '../../lib/api/http/console';
import { pageFiles } from '../../lib/api/http/console-page';
import { config } from '../../lib/platform/config';
import { observed } from '../../lib/platform/tracing';

// The console on the Admin API: its page (no authorizer), and /console/api/{proxy+} (the console's
// authorizer), each request handed to the function of the Admin route it names.
const signIn: SignIn = config.CONSOLE_SIGN_IN_URL ? { kind: 'hosted', url: config.CONSOLE_SIGN_IN_URL, clientId: config.CONSOLE_CLIENT_ID } : { kind: 'local' };
const name = config.CONSOLE_NAME || config.ILP_ADDRESS;

export const handler = observed(
  async (event: APIGatewayProxyEvent, context: Context): Promise<APIGatewayProxyResult> =>
    event.path.startsWith(`${CONSOLE_API_PREFIX}/`)
      ? handOff(event, lambdaInvoke(context, 'console'))
      : servePage(event, await pageFiles().catch((e: Error) => e), signIn, name),
);
