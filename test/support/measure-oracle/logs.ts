// Logs are text whose lines are records: most start with a time or a level. In logs a line
// at an error level is a fact of its own (an "error line"); outside logs, so is a line that
// opens like an error report ("Traceback ...", "TypeError: ...").
import { asciiLower, type Token } from "./tokens";
import { ERROR_LEVELS, ERROR_OPENERS, LOG_LEVELS } from "./words";

/** How many leading tokens of a line may hold its time and level. */
const LEAD = 4;

const isTimeKind = (t: Token) => t.kind === "datetime" || t.kind === "date" || t.kind === "time";

/** The level word of a token: `ERROR`, `[error]` (brackets are gone by now) or `level=error`. */
function levelOf(t: Token): string {
  const lower = asciiLower(t.text);
  if (!t.key) return lower;
  const key = asciiLower(t.key);
  return key === "level" || key === "lvl" || key === "severity" ? lower : "";
}

function looksLikeLogLine(tokens: Token[]): boolean {
  const lead = Math.min(LEAD, tokens.length);
  for (let i = 0; i < lead; i++) {
    const t = tokens[i] as Token;
    if (isTimeKind(t) || LOG_LEVELS.has(levelOf(t))) return true;
  }
  return false;
}

/** Logs: at least two non-empty lines, at least half of them led by a time or a level. */
export function isLogText(lines: readonly Token[][]): boolean {
  let nonEmpty = 0;
  let logLike = 0;
  for (const tokens of lines) {
    if (tokens.length === 0) continue;
    nonEmpty++;
    if (looksLikeLogLine(tokens)) logLike++;
  }
  return nonEmpty >= 2 && logLike * 2 >= nonEmpty;
}

function opensLikeError(first: Token | undefined): boolean {
  if (!first) return false;
  const lower = asciiLower(first.text);
  return ERROR_OPENERS.has(lower) || (lower.length > 5 && (lower.endsWith("error") || lower.endsWith("exception")));
}

export function isErrorLine(tokens: readonly Token[], logs: boolean): boolean {
  if (opensLikeError(tokens[0])) return true;
  if (!logs) return false;
  const lead = Math.min(LEAD, tokens.length);
  for (let i = 0; i < lead; i++) if (ERROR_LEVELS.has(levelOf(tokens[i] as Token))) return true;
  return false;
}

/** What an error line needs an index to hold: every key of its tokens but its time stamps. */
export function errorLineNeed(tokens: readonly Token[]): string[] {
  const need: string[] = [];
  const seen = new Set<string>();
  for (const t of tokens) {
    if (isTimeKind(t)) continue;
    for (const key of t.need) {
      if (seen.has(key)) continue;
      seen.add(key);
      need.push(key);
    }
  }
  return need;
}
