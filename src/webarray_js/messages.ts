/** Messages between the page (index.ts) and the Python worker (python-worker.ts). */

import type { BackendKind } from "./backend";
import type { Connection } from "./bridge";

export type ToPython =
  | {
      type: "init";
      pyodideUrl: string;
      wheels: string[];
      connection: Connection;
      env: Record<string, string>;
      /** Pyodide's interrupt buffer (one Int32 on a SharedArrayBuffer), where one exists */
      interrupt: Int32Array | null;
      /** a memory snapshot of an earlier start to resume from (index.ts, StartOptions.snapshot) */
      snapshot: Uint8Array | null;
      /** modules to import before the snapshot: with snapshot null, make one after importing them */
      makeSnapshot: string[] | null;
      /** Pyodide packages the page serves, loaded when a script imports them */
      packages: string[];
    }
  | { type: "run"; id: number; code: string }
  | { type: "script"; id: number; path: string; source: string; argv: string[] }
  | { type: "writeFile"; id: number; path: string; data: Uint8Array };

export type FromPython =
  | {
      type: "ready";
      backend: BackendKind;
      loadMs: number;
      /** the snapshot made at this start (init.makeSnapshot), or null */
      snapshot: Uint8Array | null;
      /** whether this start resumed from init.snapshot; why not, where it could not */
      restored: boolean;
      snapshotError: string | null;
    }
  | { type: "progress"; stage: StartStage; fraction: number | null }
  | { type: "stdout" | "stderr"; text: string }
  | { type: "result"; id: number; ok: boolean; value: unknown }
  | { type: "fatal"; message: string };

/** The steps of a start, in order, as onProgress reports them. */
export type StartStage = "pyodide" | "wheels" | "device";
