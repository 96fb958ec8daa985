// The integrations as built (dist/), typed from their sources: what the tests run is what ships.
import { fileURLToPath } from "node:url";

const dist = (name: string) =>
  fileURLToPath(new URL(`../../dist/sdk/typescript/src/integrations/${name}.js`, import.meta.url));

export const anthropic = (await import(dist("anthropic"))) as typeof import("../../src/integrations/anthropic");
export const claudeAgent = (await import(dist("claude-agent"))) as typeof import("../../src/integrations/claude-agent");
export const openaiAgents = (await import(
  dist("openai-agents")
)) as typeof import("../../src/integrations/openai-agents");
export const langchain = (await import(dist("langchain"))) as typeof import("../../src/integrations/langchain");
export const HOOK = dist("claude-code-hook");

/** Resolves once `check` holds, polling; fails after `ms`. */
export async function until(check: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 25));
  }
}
