import type { WorkbenchBridge } from '../../shared/ipc/bridge';

declare global {
  interface Window {
    /** The bridge the preload (or the test host) puts on the page. */
    readonly workbench?: WorkbenchBridge;
  }
}
