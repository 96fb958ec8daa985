"use client";
// System / light / dark, remembered in localStorage. The boot script in <head> applies the
// stored choice before paint; this control only changes it afterwards.
import { useEffect, useState } from "react";
import { parseTheme, THEME_STORAGE_KEY, THEMES, type Theme } from "@/lib/theme";

const LABEL: Record<Theme, string> = { system: "System", light: "Light", dark: "Dark" };

function apply(theme: Theme) {
  const root = document.documentElement;
  if (theme === "system") delete root.dataset.theme;
  else root.dataset.theme = theme;
  try {
    if (theme === "system") localStorage.removeItem(THEME_STORAGE_KEY);
    else localStorage.setItem(THEME_STORAGE_KEY, theme);
  } catch {
    // Storage refused (private mode): the choice holds for this page only.
  }
}

export function ThemeToggle() {
  const [theme, setTheme] = useState<Theme>("system");
  useEffect(() => {
    setTheme(parseTheme(document.documentElement.dataset.theme));
  }, []);
  return (
    <fieldset className="theme-toggle" data-testid="theme-toggle">
      <legend className="visually-hidden">Colour scheme</legend>
      {THEMES.map((t) => (
        <label key={t} className={t === theme ? "checked" : undefined}>
          <input
            type="radio"
            name="theme"
            value={t}
            checked={t === theme}
            onChange={() => {
              setTheme(t);
              apply(t);
            }}
          />
          {LABEL[t]}
        </label>
      ))}
    </fieldset>
  );
}
