/**
 * Entry of the dedicated GPU worker: receives a Channel, serves it, and answers
 * {type: "ready"} (with the start error's message when the backend did not start).
 */

import { serveChannel } from "./host";
import type { Channel } from "./ring";

self.onmessage = async (ev: MessageEvent<{ channel: Channel }>) => {
  const host = await serveChannel(ev.data.channel);
  self.postMessage({ type: "ready", error: host.startError?.message ?? null });
};
