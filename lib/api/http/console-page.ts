// @ts-expect-error a build script, in CommonJS without types
import { buildConsolePage } from '../../../infra/esbuild/console-page.cjs';
import type { PageFiles } from './console';

// The console's page, built with esbuild the first time it is asked for (npm start). A packaged
// function has it built already: infra/esbuild/console-page.cjs puts it in this module's place.
// A failed build is not kept: the next request builds again (once console/ is mended).
let built: Promise<PageFiles> | undefined;
export const pageFiles = (): Promise<PageFiles> =>
  (built ??= buildConsolePage().catch((e: Error) => {
    built = undefined;
    throw e;
  }));
