import { Tracer } from '@aws-lambda-powertools/tracer';
import { serviceName } from './log';
import { withMetrics } from './metrics';

// X-Ray subsegments for each invocation and each AWS call (Powertools Tracer), under the segment
// that Lambda's active tracing opens. The Tracer turns itself off away from Lambda (no
// AWS_EXECUTION_ENV: npm start, the tests) and with POWERTOOLS_TRACE_ENABLED=false.

export const tracer = new Tracer({ serviceName });

// Runs a handler in a subsegment of its own, annotated with its cold start; an error is recorded.
const withTracing =
  <E, C, R>(handler: (event: E, context: C) => Promise<R>) =>
  async (event: E, context: C): Promise<R> => {
    const segment = tracer.getSegment();
    if (!tracer.isTracingEnabled() || !segment) return handler(event, context);
    const subsegment = segment.addNewSubsegment(`## ${process.env._HANDLER ?? 'handler'}`);
    tracer.setSegment(subsegment);
    tracer.annotateColdStart();
    tracer.addServiceNameAnnotation();
    try {
      return await handler(event, context);
    } catch (error) {
      tracer.addErrorAsMetadata(error as Error);
      throw error;
    } finally {
      subsegment.close();
      tracer.setSegment(segment);
    }
  };

// Every function's handler: traced, and its metrics published when it ends.
export const observed = <E, C, R>(handler: (event: E, context: C) => Promise<R>) => withMetrics(withTracing(handler));
