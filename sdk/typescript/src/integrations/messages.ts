// Anthropic-shaped messages (the Messages API's, which Claude Code's transcript and the Claude
// Agent SDK's messages carry too) as the text a compaction read: one line per message, its
// role first, text, tool calls with their input, tool results with their content.
// Images and documents count only by their kind; thinking is left out (it is not sent again).

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

function blockText(block: unknown): string {
  if (typeof block === "string") return block;
  if (!isObject(block)) return "";
  switch (block.type) {
    case "text":
      return typeof block.text === "string" ? block.text : "";
    case "tool_use":
    case "server_tool_use":
      return `[tool ${String(block.name)}] ${safeJson(block.input)}`;
    case "tool_result":
      return `[result] ${contentText(block.content)}`;
    case "compaction":
      return typeof block.content === "string" ? block.content : "";
    case "thinking":
    case "redacted_thinking":
      return "";
    default:
      return typeof block.type === "string" ? `[${block.type}]` : "";
  }
}

/** A message's content (a string, or blocks) as text. */
export function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content))
    return content
      .map(blockText)
      .filter((t) => t !== "")
      .join("\n");
  return "";
}

/** `role: text` for one message; "" when it says nothing readable. */
export function messageLine(message: unknown): string {
  if (!isObject(message)) return "";
  const text = contentText(message.content);
  return text === "" ? "" : `${typeof message.role === "string" ? message.role : "message"}: ${text}`;
}

export function messagesText(messages: readonly unknown[]): string {
  return messages
    .map(messageLine)
    .filter((t) => t !== "")
    .join("\n\n");
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? "";
  } catch {
    return "";
  }
}
