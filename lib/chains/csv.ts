// CSV as spreadsheets read it (RFC 4180): fields with a comma, quote or line break are
// quoted, quotes doubled, rows end in CRLF.

/**
 * Chain ids and pass ids come from agents. A cell starting with = + - @, or a tab, CR or line
 * feed, is a formula to a spreadsheet, and spreadsheets skip leading blanks before reading one
 * (` =1+1`), so such text, and any text that starts with a blank, is prefixed with an
 * apostrophe (OWASP's advice for CSV injection). Numbers are written as numbers and are never
 * prefixed.
 */
function neutralise(text: string): string {
  return /^[\s=+\-@]/.test(text) ? `'${text}` : text;
}

export function csvField(value: string | number | boolean | null | undefined): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  const text = neutralise(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function csvRow(values: readonly (string | number | boolean | null | undefined)[]): string {
  return `${values.map(csvField).join(",")}\r\n`;
}
