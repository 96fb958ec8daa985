// The colour scheme the reader chose: "system" follows the operating system, the other two
// override it. Stored in localStorage and applied before first paint by THEME_BOOT_SCRIPT, so
// a page never flashes in the other scheme.

export const THEMES = ["system", "light", "dark"] as const;
export type Theme = (typeof THEMES)[number];

export const THEME_STORAGE_KEY = "floorline-theme";

export function parseTheme(value: string | null | undefined): Theme {
  return value === "light" || value === "dark" ? value : "system";
}

/**
 * Runs in <head> before the body paints: sets `data-theme` on <html> when a scheme was chosen.
 * Kept tiny and constant so a Content-Security-Policy can allow it by its hash.
 */
export const THEME_BOOT_SCRIPT = `try{var t=localStorage.getItem("${THEME_STORAGE_KEY}");if(t==="light"||t==="dark")document.documentElement.dataset.theme=t}catch(e){}`;
