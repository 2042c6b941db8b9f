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
    }
  | { type: "run"; id: number; code: string }
  | { type: "script"; id: number; path: string; source: string; argv: string[] }
  | { type: "writeFile"; id: number; path: string; data: Uint8Array };

export type FromPython =
  | { type: "ready"; backend: BackendKind; loadMs: number }
  | { type: "stdout" | "stderr"; text: string }
  | { type: "result"; id: number; ok: boolean; value: unknown }
  | { type: "fatal"; message: string };
