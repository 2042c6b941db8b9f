/**
 * Entry for a Pyodide worker that the page already has: connect webarray to a GPU
 * host that the page started with startGpuHost (or, with JSPI, to a device on this
 * thread). docs/browser.md shows the whole recipe.
 */

export { BRIDGE_MODULE, connectWebarray, installWheel, jspiAvailable } from "./bridge";
export type { Connection, Transport } from "./bridge";
export type { BackendKind } from "./backend";
export type { Channel } from "./ring";
