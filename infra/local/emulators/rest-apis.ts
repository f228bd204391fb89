import type { FunctionDef, ServiceDef } from '../start/serverless-config';

// The REST APIs that infra/resources.yml declares itself (AWS::ApiGateway::RestApi, its Resources
// and its Methods with a Lambda proxy integration), read as routes for the local gateway. The
// serverless-managed APIs are read from the functions' events instead (./serverless-config.ts).
export interface Route {
  method: string; // 'ANY' or an HTTP method
  path: string; // '/incoming-payments/{proxy+}'
  fn: FunctionDef;
  iam: boolean; // AuthorizationType AWS_IAM: callers must sign with SigV4
  cognito?: boolean; // a COGNITO_USER_POOLS authorizer: callers send an ID token (the console's)
}

export interface RestApi {
  routes: Route[];
  binary: boolean; // BinaryMediaTypes '*/*': every request body reaches the function base64-encoded
}

// serverless.yml's function `authServer` is the CloudFormation resource AuthServerLambdaFunction.
export const logicalIdOf = (fn: FunctionDef) =>
  `${fn.name[0].toUpperCase()}${fn.name.slice(1).replace(/-/g, 'Dash').replace(/_/g, 'Underscore')}LambdaFunction`;

export function restApis(service: ServiceDef): Map<string, RestApi> {
  const resources = service.resources;
  const byLogicalId = new Map(service.functions.map((fn) => [logicalIdOf(fn), fn]));
  const apis = new Map<string, RestApi>();
  for (const [id, r] of Object.entries(resources)) {
    if (r.Type === 'AWS::ApiGateway::RestApi') apis.set(id, { routes: [], binary: (r.Properties?.BinaryMediaTypes ?? []).includes('*/*') });
  }

  // A resource's path, from its PathPart and its parent's path; the API's root is '/'.
  const pathOf = (resourceId: any): string => {
    if (resourceId?.['Fn::GetAtt']?.[1] === 'RootResourceId') return '';
    const resource = resources[resourceId?.Ref];
    if (resource?.Type !== 'AWS::ApiGateway::Resource') throw new Error(`Unknown API Gateway resource ${JSON.stringify(resourceId)}`);
    return `${pathOf(resource.Properties!.ParentId)}/${resource.Properties!.PathPart}`;
  };

  for (const [id, r] of Object.entries(resources)) {
    if (r.Type !== 'AWS::ApiGateway::Method') continue;
    const props = r.Properties!;
    const routes = apis.get(props.RestApiId?.Ref)?.routes;
    if (!routes) throw new Error(`${id}: RestApiId must name a RestApi of resources.yml`);
    const uri = JSON.stringify(props.Integration?.Uri ?? '');
    const target = /\$\{(\w+LambdaFunction)\.Arn\}/.exec(uri)?.[1];
    const fn = target && byLogicalId.get(target);
    if (props.Integration?.Type !== 'AWS_PROXY' || !fn) throw new Error(`${id}: only Lambda proxy integrations to functions of serverless.yml run locally`);
    routes.push({ method: String(props.HttpMethod).toUpperCase(), path: pathOf(props.ResourceId) || '/', fn, iam: props.AuthorizationType === 'AWS_IAM' });
  }
  return apis;
}
